# reduce_max is not reduce_sum
graph trap_max_vs_sum_b {
  X = input f16[8, 16]
  O = reduce_sum(X, dim=1)
  output O
}
