# expect: error
# inputs of different shapes
graph error_input_shape_a {
  A = input f16[8, 8]
  O = exp(A)
  output O
}
