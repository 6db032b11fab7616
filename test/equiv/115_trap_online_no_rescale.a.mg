# expect: not-equivalent
# exponents against the running maximum, but the accumulators are never rescaled
graph trap_online_no_rescale_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = mul(matmul(Q, K), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
