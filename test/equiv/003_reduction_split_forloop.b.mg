# a reduction split into a for-loop with accum
graph reduction_split_forloop_b {
  X = input f16[8, 64]
  O = kernel(X) grid=[2] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)
    save(accum(reduce_sum(t, dim=1)), O, omap={x:0})
  }
  output O
}
