# expect: equivalent
# minimum(a, b) = -maximum(-a, -b)
graph minimum_is_negated_maximum_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = minimum(X, Y)
  output O
}
