# sqrt(x^2) = relu(x) + relu(-x) holds for reals; no identity relates them here
graph unprovable_abs_b {
  X = input f16[8, 16]
  O = add(relu(X), relu(mul(X, -1)))
  output O
}
