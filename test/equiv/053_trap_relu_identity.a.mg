# expect: not-equivalent
# relu(x) is not x
graph trap_relu_identity_a {
  X = input f16[8, 16]
  O = relu(X)
  output O
}
