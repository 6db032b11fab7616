# expect: not-equivalent
# exp of the wrong input
graph trap_exp_wrong_argument_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(A)
  output O
}
