# expect: equivalent
# a batched matmul with a broadcast operand
graph broadcast_batch_matmul_a {
  A = input f16[2, 4, 8]
  B = input f16[8, 4]
  O = matmul(A, B)
  output O
}
