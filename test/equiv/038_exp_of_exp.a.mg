# expect: equivalent
# exp of exp (a random function) of equal values
graph exp_of_exp_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(exp(add(A, B)))
  output O
}
