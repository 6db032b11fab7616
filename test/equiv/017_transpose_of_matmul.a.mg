# expect: equivalent
# (AB)^T = B^T A^T
graph transpose_of_matmul_a {
  A = input f16[4, 8]
  B = input f16[8, 16]
  O = transpose(matmul(A, B), dim0=0, dim1=1)
  output O
}
