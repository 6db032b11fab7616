# exp(2x) = exp(x)^2
graph exp_double_b {
  X = input f16[8, 16]
  O = square(exp(X))
  output O
}
