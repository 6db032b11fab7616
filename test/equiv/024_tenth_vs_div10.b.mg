# 0.1 is exactly 1/10
graph tenth_vs_div10_b {
  X = input f16[8, 16]
  O = div(X, 10)
  output O
}
