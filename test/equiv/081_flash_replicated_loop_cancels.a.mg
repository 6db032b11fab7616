# expect: equivalent
# a for-loop over the same tiles doubles numerator and denominator alike
graph flash_replicated_loop_cancels_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  O = matmul(softmax(matmul(Q, K), dim=-1), V)
  output O
}
