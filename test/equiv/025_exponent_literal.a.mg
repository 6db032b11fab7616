# expect: equivalent
# 1e-6 and 0.000001 are the same number
graph exponent_literal_a {
  X = input f16[8, 16]
  O = add(X, 1e-6)
  output O
}
