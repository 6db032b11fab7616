# expect: not-equivalent
# tanh and sigmoid are different keyed functions
graph trap_tanh_vs_sigmoid_a {
  X = input f16[8, 16]
  O = tanh(X)
  output O
}
