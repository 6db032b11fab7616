# expect: not-equivalent
# minimum where the reference has maximum
graph trap_minimum_for_maximum_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = maximum(X, Y)
  output O
}
