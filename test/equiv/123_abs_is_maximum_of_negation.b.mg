# abs(x) = maximum(x, -x)
graph abs_is_maximum_of_negation_b {
  X = input f16[8, 16]
  O = maximum(mul(X, -1), X)
  output O
}
