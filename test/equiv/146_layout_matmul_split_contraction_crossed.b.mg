# (see the .a file)
graph layout_matmul_split_contraction_crossed_b {
  A1 = input f16[4, 16]
  A2 = input f16[4, 16]
  B1 = input f16[16, 8]
  B2 = input f16[16, 8]
  O = add(matmul(A1, B2), matmul(A2, B1))
  output O
}
