# expect: unprovable
# tanh(x) = 2 sigmoid(2x) - 1 holds, but both are random functions here
graph unprovable_tanh_via_sigmoid_a {
  X = input f16[8, 16]
  O = tanh(X)
  output O
}
