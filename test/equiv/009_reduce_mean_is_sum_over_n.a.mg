# expect: equivalent
# reduce_mean = reduce_sum * 1/n (exact decimal 0.0625)
graph reduce_mean_is_sum_over_n_a {
  X = input f16[8, 16]
  O = reduce_mean(X, dim=1)
  output O
}
