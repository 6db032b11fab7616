# accum(op=max) over for-loop iterations equals the maximum of the whole
graph max_split_across_iterations_b {
  X = input f16[8, 64]
  O = kernel(X) grid=[2] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)
    save(accum(reduce_max(t, dim=1), op=max), O, omap={x:0})
  }
  output O
}
