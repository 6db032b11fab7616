# expect: not-equivalent
# a near miss of 143: the other operand's halves paired with the wrong parts
graph layout_concat_parts_swapped_a {
  A = input f16[4, 16]
  B = input f16[4, 16]
  C = input f16[4, 32]
  O = add(concat(A, B, dim=1), C)
  output O
}
