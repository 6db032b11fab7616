# reduce_mean = reduce_sum * 1/n (exact decimal 0.0625)
graph reduce_mean_is_sum_over_n_b {
  X = input f16[8, 16]
  O = mul(reduce_sum(X, dim=1), 0.0625)
  output O
}
