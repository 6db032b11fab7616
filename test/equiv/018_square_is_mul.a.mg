# expect: equivalent
# square(x) = x x
graph square_is_mul_a {
  X = input f16[8, 16]
  O = square(X)
  output O
}
