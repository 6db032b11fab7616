# exp(x) is not exp(x) exp(x)
graph trap_exp_square_b {
  X = input f16[8, 16]
  O = mul(exp(X), exp(X))
  output O
}
