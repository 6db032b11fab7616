# minimum where the reference has maximum
graph trap_minimum_for_maximum_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = minimum(X, Y)
  output O
}
