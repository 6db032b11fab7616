# 0.5 x = x / 2 exactly
graph half_vs_div2_b {
  X = input f16[8, 16]
  O = div(X, 2)
  output O
}
