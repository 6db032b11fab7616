# sqrt of equal values written differently
graph sqrt_same_argument_b {
  X = input f16[8, 16]
  O = sqrt(square(X))
  output O
}
