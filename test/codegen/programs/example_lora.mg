# examples/lora.mg at reduced shapes.
graph lora {
  X = input f16[16, 64]
  W = input f16[64, 256]
  A = input f16[64, 16]
  B = input f16[16, 256]
  O = add(matmul(X, W), matmul(matmul(X, A), B))
  output O
}
