# expect: equivalent
# layout_rewrite.h: an element-wise operator of a concat is the concat of the
# operator of the parts, its other operand sliced at the same points and an
# operand broadcast along the dim (extent 1) used whole
graph layout_concat_through_elementwise_a {
  A = input f16[4, 16]
  B = input f16[4, 8]
  C = input f16[4, 24]
  D = input f16[4, 1]
  O = mul(add(concat(A, B, dim=1), C), D)
  output O
}
