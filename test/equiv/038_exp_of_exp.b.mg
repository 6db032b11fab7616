# exp of exp (a random function) of equal values
graph exp_of_exp_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(mul(exp(A), exp(B)))
  output O
}
