# maximum commutes, with a number operand too
graph maximum_zero_first_is_relu_b {
  X = input f16[8, 16]
  O = relu(X)
  output O
}
