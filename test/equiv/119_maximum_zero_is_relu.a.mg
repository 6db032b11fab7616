# expect: equivalent
# relu(x) is maximum(x, 0) (mg-language.md); either operand order
graph maximum_zero_is_relu_a {
  X = input f16[8, 16]
  O = maximum(X, 0)
  output O
}
