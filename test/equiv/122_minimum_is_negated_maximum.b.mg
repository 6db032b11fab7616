# minimum(a, b) = -maximum(-a, -b)
graph minimum_is_negated_maximum_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = neg(maximum(neg(Y), neg(X)))
  output O
}
