# expect: equivalent
# 0.5 x = x / 2 exactly
graph half_vs_div2_a {
  X = input f16[8, 16]
  O = mul(X, 0.5)
  output O
}
