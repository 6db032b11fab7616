# expect: not-equivalent
# reduce_mean without the 1/n is reduce_sum
graph trap_mean_vs_sum_a {
  X = input f16[8, 16]
  O = reduce_mean(X, dim=1)
  output O
}
