# (see the .a file)
graph layout_matmul_split_contraction_b {
  A1 = input f16[2, 4, 16]
  A2 = input f16[2, 4, 16]
  B1 = input f16[2, 16, 8]
  B2 = input f16[2, 16, 8]
  O = add(matmul(A1, B1), matmul(A2, B2))
  output O
}
