# A linear layer with a low-rank (LoRA) adapter of rank 16.
graph lora {
  X = input f16[16, 256]
  W = input f16[256, 4096]
  A = input f16[256, 16]
  B = input f16[16, 4096]
  O = add(matmul(X, W), matmul(matmul(X, A), B))
  output O
}
