# expect: equivalent
# rms_norm then matmul, fused in one kernel with the normalization after the loop
graph rmsnorm_linear_fused_a {
  X = input f16[4, 64]
  W = input f16[64, 32]
  Y = matmul(rms_norm(X), W)
  output Y
}
