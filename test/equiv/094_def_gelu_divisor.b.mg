# gelu(y) is zero at y = 0: the quotient is undefined there
graph def_gelu_divisor_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = X
  output O
}
