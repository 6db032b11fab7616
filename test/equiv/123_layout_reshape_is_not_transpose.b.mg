# transpose instead of reshape (see the .a file)
graph layout_reshape_is_not_transpose_b {
  X = input f16[8, 16]
  O = transpose(X, dim0=0, dim1=1)
  output O
}
