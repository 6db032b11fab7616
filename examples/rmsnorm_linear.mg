# RMSNorm followed by a linear layer (Mirage's RMSNorm+Linear benchmark).
graph rmsnorm_linear {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  Y = matmul(rms_norm(X), W)
  output Y
}
