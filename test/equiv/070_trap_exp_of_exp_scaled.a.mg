# expect: not-equivalent
# exp(exp(x)) is not exp(2 exp(x))
graph trap_exp_of_exp_scaled_a {
  X = input f16[8, 16]
  O = exp(exp(X))
  output O
}
