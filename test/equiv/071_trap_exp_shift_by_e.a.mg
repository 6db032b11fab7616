# expect: not-equivalent
# exp(x + 1) is not 2.718281828 exp(x) (e is irrational)
graph trap_exp_shift_by_e_a {
  X = input f16[8, 16]
  O = exp(add(X, 1))
  output O
}
