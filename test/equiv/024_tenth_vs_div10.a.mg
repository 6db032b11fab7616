# expect: equivalent
# 0.1 is exactly 1/10
graph tenth_vs_div10_a {
  X = input f16[8, 16]
  O = mul(X, 0.1)
  output O
}
