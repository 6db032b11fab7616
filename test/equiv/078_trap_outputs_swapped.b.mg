# outputs compared by order
graph trap_outputs_swapped_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  S = add(A, B)
  D = mul(A, B)
  output D, S
}
