# tanh and sigmoid are different keyed functions
graph trap_tanh_vs_sigmoid_b {
  X = input f16[8, 16]
  O = sigmoid(X)
  output O
}
