# expect: equivalent
# matmul is associative
graph matmul_assoc_a {
  A = input f16[4, 8]
  B = input f16[8, 16]
  C = input f16[16, 4]
  O = matmul(matmul(A, B), C)
  output O
}
