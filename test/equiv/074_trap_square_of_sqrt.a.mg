# expect: not-equivalent
# square(sqrt(x)) is not x (sqrt is undefined below 0)
graph trap_square_of_sqrt_a {
  X = input f16[8, 16]
  O = square(sqrt(X))
  output O
}
