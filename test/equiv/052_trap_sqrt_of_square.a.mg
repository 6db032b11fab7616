# expect: not-equivalent
# sqrt(x x) is not x
graph trap_sqrt_of_square_a {
  X = input f16[8, 16]
  O = sqrt(mul(X, X))
  output O
}
