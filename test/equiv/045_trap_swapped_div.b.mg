# swapped div operands
graph trap_swapped_div_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = div(B, A)
  output O
}
