# expect: not-equivalent
# a rank-1 substitute for the matmul inside a softmax
graph trap_rank1_in_softmax_a {
  Q = input f16[16, 8]
  K = input f16[8, 16]
  V = input f16[16, 8]
  O = matmul(softmax(matmul(Q, K), dim=-1), V)
  output O
}
