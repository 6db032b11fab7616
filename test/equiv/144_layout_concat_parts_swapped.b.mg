# (see the .a file)
graph layout_concat_parts_swapped_b {
  A = input f16[4, 16]
  B = input f16[4, 16]
  C = input f16[4, 32]
  O = concat(add(A, slice(C, dim=1, start=16, end=32)), add(B, slice(C, dim=1, start=0, end=16)), dim=1)
  output O
}
