# expect: not-equivalent
# a transposed operand
graph trap_matmul_transposed_operand_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, B)
  output O
}
