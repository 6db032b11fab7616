# swapped sub operands
graph trap_swapped_sub_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = sub(B, A)
  output O
}
