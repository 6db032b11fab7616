# swapped matmul operands (square shapes)
graph trap_swapped_matmul_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(B, A)
  output O
}
