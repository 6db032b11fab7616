# accum(op=max) replaced by accum (a sum of partial maxima)
graph trap_accum_max_vs_sum_b {
  X = input f16[8, 64]
  O = kernel(X) grid=[2] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)
    save(accum(reduce_max(t, dim=1)), O, omap={x:0})
  }
  output O
}
