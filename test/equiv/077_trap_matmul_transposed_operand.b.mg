# a transposed operand
graph trap_matmul_transposed_operand_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, transpose(B, dim0=0, dim1=1))
  output O
}
