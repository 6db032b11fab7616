# expect: not-equivalent
# a broadcast outer product substituted inside a softmax
graph trap_rank1_outer_in_softmax_a {
  Q = input f16[16, 8]
  K = input f16[8, 16]
  V = input f16[16, 8]
  O = matmul(softmax(matmul(Q, K), dim=-1), V)
  output O
}
