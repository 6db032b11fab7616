# expect: not-equivalent
# a near miss of 145: the parts paired crosswise (A1·B2 + A2·B1)
graph layout_matmul_split_contraction_crossed_a {
  A1 = input f16[4, 16]
  A2 = input f16[4, 16]
  B1 = input f16[16, 8]
  B2 = input f16[16, 8]
  O = matmul(concat(A1, A2, dim=1), concat(B1, B2, dim=0))
  output O
}
