# expect: not-equivalent
# outputs compared by order
graph trap_outputs_swapped_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  S = add(A, B)
  D = mul(A, B)
  output S, D
}
