# expect: not-proven
# sqrt(y) is undefined for y < 0: x sqrt(y) / sqrt(y) is not x there
graph def_sqrt_of_negative_cancels_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  S = sqrt(Y)
  O = div(mul(X, S), S)
  output O
}
