# exp of the wrong input
graph trap_exp_wrong_argument_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(B)
  output O
}
