# expect: not-equivalent
# the exponent is taken against the running maximum of s, but the
# accumulators are rescaled by the running maximum of 2 s
graph trap_online_rescale_by_other_scan_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = mul(matmul(Q, K), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
