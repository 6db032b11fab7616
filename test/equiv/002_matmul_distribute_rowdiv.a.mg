# expect: equivalent
# a row-wise division distributes over a matmul
graph matmul_distribute_rowdiv_a {
  A = input f16[8, 16]
  S = input f16[8, 1]
  B = input f16[16, 8]
  O = matmul(div(A, S), B)
  output O
}
