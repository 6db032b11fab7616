# relu(x) is maximum(x, 0) (mg-language.md); either operand order
graph maximum_zero_is_relu_b {
  X = input f16[8, 16]
  O = relu(X)
  output O
}
