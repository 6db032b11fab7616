# the input takes rsqrt(y), so it is defined only where y > 0, and there relu(y) != 0
graph def_relu_divisor_where_input_positive_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  R = relu(Y)
  O = add(div(mul(rsqrt(Y), R), R), X)
  output O
}
