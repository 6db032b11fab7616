# expect: equivalent
# the input takes rsqrt(y), so it is defined only where y > 0, and there relu(y) != 0
graph def_relu_divisor_where_input_positive_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = add(rsqrt(Y), X)
  output O
}
