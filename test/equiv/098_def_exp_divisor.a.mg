# expect: equivalent
# exp is positive: x exp(y) / exp(y) = x everywhere
graph def_exp_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  E = exp(Y)
  O = div(mul(X, E), E)
  output O
}
