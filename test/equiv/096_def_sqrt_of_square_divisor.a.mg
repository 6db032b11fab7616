# expect: not-proven
# sqrt(y^2) is zero at y = 0 (it is only non-negative)
graph def_sqrt_of_square_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  S = sqrt(square(Y))
  O = div(mul(X, S), S)
  output O
}
