# exp is positive: x exp(y) / exp(y) = x everywhere
graph def_exp_divisor_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = X
  output O
}
