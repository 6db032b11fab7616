# expect: equivalent
# abs(x) = maximum(x, -x)
graph abs_is_maximum_of_negation_a {
  X = input f16[8, 16]
  O = abs(X)
  output O
}
