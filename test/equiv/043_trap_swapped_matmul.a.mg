# expect: not-equivalent
# swapped matmul operands (square shapes)
graph trap_swapped_matmul_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, B)
  output O
}
