# expect: equivalent
# gated MLP with both matmuls in one kernel and the gate after the loop
graph gated_mlp_fused_a {
  X = input f16[4, 32]
  W1 = input f16[32, 16]
  W2 = input f16[32, 16]
  O = mul(silu(matmul(X, W1)), matmul(X, W2))
  output O
}
