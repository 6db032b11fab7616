# expect: equivalent
# slicing a concat at the seam gives back an operand; heads split by reshape
# and merged again are the projection itself
graph layout_slice_of_concat_a {
  A = input f16[8, 32]
  B = input f16[8, 32]
  W = input f16[32, 128]
  O = matmul(B, W)
  output O
}
