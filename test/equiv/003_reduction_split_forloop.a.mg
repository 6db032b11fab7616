# expect: equivalent
# a reduction split into a for-loop with accum
graph reduction_split_forloop_a {
  X = input f16[8, 64]
  O = reduce_sum(X, dim=1)
  output O
}
