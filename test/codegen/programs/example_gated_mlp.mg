# examples/gated_mlp.mg at reduced shapes (the real ones run in the slow tests).
graph gated_mlp {
  X = input f16[8, 256]
  W1 = input f16[256, 128]
  W2 = input f16[256, 128]
  O = mul(silu(matmul(X, W1)), matmul(X, W2))
  output O
}
