# expect: equivalent
# flash decoding (two kernels) equals softmax attention
graph flash_decoding_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = matmul(Q, K)
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
