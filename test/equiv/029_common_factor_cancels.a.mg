# expect: equivalent
# (a exp(c)) / (b exp(c)) = a / b (exp(c) is never zero; 097 has a factor c that can be)
graph common_factor_cancels_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  C = input f16[8, 8]
  O = div(A, B)
  output O
}
