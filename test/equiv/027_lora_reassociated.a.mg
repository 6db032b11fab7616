# expect: equivalent
# LoRA with the low-rank product reassociated
graph lora_reassociated_a {
  X = input f16[4, 32]
  W = input f16[32, 16]
  A = input f16[32, 4]
  B = input f16[4, 16]
  O = add(matmul(X, W), matmul(matmul(X, A), B))
  output O
}
