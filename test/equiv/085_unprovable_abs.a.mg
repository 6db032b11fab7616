# expect: unprovable
# sqrt(x^2) = relu(x) + relu(-x) holds for reals; no identity relates them here
graph unprovable_abs_a {
  X = input f16[8, 16]
  O = sqrt(square(X))
  output O
}
