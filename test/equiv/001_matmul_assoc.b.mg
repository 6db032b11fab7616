# matmul is associative
graph matmul_assoc_b {
  A = input f16[4, 8]
  B = input f16[8, 16]
  C = input f16[16, 4]
  O = matmul(A, matmul(B, C))
  output O
}
