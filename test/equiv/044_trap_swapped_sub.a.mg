# expect: not-equivalent
# swapped sub operands
graph trap_swapped_sub_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = sub(A, B)
  output O
}
