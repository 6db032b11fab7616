# sqrt(y) is undefined for y < 0: x sqrt(y) / sqrt(y) is not x there
graph def_sqrt_of_negative_cancels_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = X
  output O
}
