# expect: equivalent
# exp(0 x) = 1
graph exp_of_zero_a {
  X = input f16[8, 16]
  O = exp(mul(X, 0))
  output O
}
