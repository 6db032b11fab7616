# expect: equivalent
# sqrt of equal values written differently
graph sqrt_same_argument_a {
  X = input f16[8, 16]
  O = sqrt(mul(X, X))
  output O
}
