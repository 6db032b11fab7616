# expect: equivalent
# maximum commutes, with a number operand too
graph maximum_zero_first_is_relu_a {
  X = input f16[8, 16]
  O = maximum(0, X)
  output O
}
