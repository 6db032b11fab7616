# expect: equivalent
# (a c) / (b c) = a / b
graph common_factor_cancels_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  C = input f16[8, 8]
  O = div(A, B)
  output O
}
