# exp(x + 1) is not 2.718281828 exp(x) (e is irrational)
graph trap_exp_shift_by_e_b {
  X = input f16[8, 16]
  O = mul(exp(X), 2.718281828)
  output O
}
