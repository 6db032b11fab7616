# expect: not-equivalent
# a wrong fmap in a split sum, shapes fitting through a transpose
graph trap_wrong_fmap_sum_a {
  X = input f16[8, 8]
  O = reduce_sum(X, dim=1, size=4)
  output O
}
