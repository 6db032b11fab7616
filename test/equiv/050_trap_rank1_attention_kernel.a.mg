# expect: not-equivalent
# flash decoding whose score matmul is a rank-1 product
graph trap_rank1_attention_kernel_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  O = matmul(softmax(matmul(Q, K), dim=-1), V)
  output O
}
