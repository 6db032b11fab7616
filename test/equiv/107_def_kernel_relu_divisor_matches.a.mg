# expect: equivalent
# a kernel body dividing by relu of a tile: every instance is a divisor of
# the input too, so both are undefined on the same inputs
graph def_kernel_relu_divisor_matches_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = div(X, relu(Y))
  output O
}
