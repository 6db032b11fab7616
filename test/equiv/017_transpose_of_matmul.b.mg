# (AB)^T = B^T A^T
graph transpose_of_matmul_b {
  A = input f16[4, 8]
  B = input f16[8, 16]
  O = matmul(transpose(B, dim0=0, dim1=1), transpose(A, dim0=0, dim1=1))
  output O
}
