# transposing twice is the identity
graph transpose_twice_b {
  X = input f16[4, 8, 16]
  O = transpose(transpose(X, dim0=0, dim1=2), dim0=2, dim1=0)
  output O
}
