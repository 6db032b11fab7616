# (see the .a file)
graph layout_slice_of_concat_b {
  A = input f16[8, 32]
  B = input f16[8, 32]
  W = input f16[32, 128]
  C = slice(concat(A, B, dim=0), dim=0, start=8, end=16)
  H = reshape(matmul(C, reshape(reshape(W, shape=[32, 4, 32]), shape=[32, -1])), shape=[8, 4, 32])
  O = reshape(H, shape=[8, 128])
  output O
}
