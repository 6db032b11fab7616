# a wrong fmap in a split sum, shapes fitting through a transpose
graph trap_wrong_fmap_sum_b {
  X = input f16[8, 8]
  O = kernel(X) forloop=2 {
    t = tile(X, fmap=0)
    save(accum(transpose(t, dim0=0, dim1=1)), O)
  }
  output O
}
