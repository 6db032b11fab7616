# 0.1 vs 0.10000001
graph trap_tiny_constant_difference_b {
  X = input f16[8, 16]
  O = mul(X, 0.10000001)
  output O
}
