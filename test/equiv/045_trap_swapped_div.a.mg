# expect: not-equivalent
# swapped div operands
graph trap_swapped_div_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = div(A, B)
  output O
}
