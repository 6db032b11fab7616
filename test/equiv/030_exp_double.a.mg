# expect: equivalent
# exp(2x) = exp(x)^2
graph exp_double_a {
  X = input f16[8, 16]
  O = exp(mul(X, 2))
  output O
}
