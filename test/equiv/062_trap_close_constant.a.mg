# expect: not-equivalent
# 0.125 vs 0.12
graph trap_close_constant_a {
  X = input f16[8, 16]
  O = mul(X, 0.125)
  output O
}
