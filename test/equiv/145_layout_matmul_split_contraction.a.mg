# expect: equivalent
# layout_rewrite.h: a matmul whose contracted dim is a concat on both operands
# (same split) is the sum of the parts' products: [A1 A2]·[B1; B2] = A1·B1 + A2·B2
graph layout_matmul_split_contraction_a {
  A1 = input f16[2, 4, 16]
  A2 = input f16[2, 4, 16]
  B1 = input f16[2, 16, 8]
  B2 = input f16[2, 16, 8]
  O = matmul(concat(A1, A2, dim=2), concat(B1, B2, dim=1))
  output O
}
