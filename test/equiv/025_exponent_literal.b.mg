# 1e-6 and 0.000001 are the same number
graph exponent_literal_b {
  X = input f16[8, 16]
  O = add(X, 0.000001)
  output O
}
