# inputs of different shapes
graph error_input_shape_b {
  A = input f16[8, 4]
  O = exp(A)
  output O
}
