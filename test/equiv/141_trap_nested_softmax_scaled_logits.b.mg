# the second softmax's logits doubled
graph trap_nested_softmax_scaled_logits_b {
  X = input f16[4, 16]
  W = input f16[16, 8]
  E = exp(X)
  P = div(E, reduce_sum(E, dim=1))
  Y = matmul(P, W)
  F = exp(mul(Y, 2))
  O = div(F, reduce_sum(F, dim=1))
  output O
}
