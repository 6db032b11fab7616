# tanh(x) = 2 sigmoid(2x) - 1 holds, but both are random functions here
graph unprovable_tanh_via_sigmoid_b {
  X = input f16[8, 16]
  O = sub(mul(sigmoid(mul(X, 2)), 2), 1)
  output O
}
