# expect: not-equivalent
# flash decoding that combines the partial denominators with max instead of sum
graph trap_flash_max_of_denominators_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  O = matmul(softmax(matmul(Q, K), dim=-1), V)
  output O
}
