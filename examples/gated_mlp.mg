# The gated MLP of LLaMA-style models: silu(X·W1) ⊙ (X·W2).
graph gated_mlp {
  X = input f16[8, 4096]
  W1 = input f16[4096, 4096]
  W2 = input f16[4096, 4096]
  O = mul(silu(matmul(X, W1)), matmul(X, W2))
  output O
}
