# expect: equivalent
# layout_rewrite.h: with the concat on one operand only, the other is sliced
# at the same points; a slice of an element-wise operator is the operator of
# the slices, and a slice of a slice one slice
graph layout_matmul_one_concat_operand_a {
  A1 = input f16[4, 16]
  A2 = input f16[4, 16]
  X = input f16[40, 8]
  Y = input f16[40, 8]
  B = slice(mul(X, Y), dim=0, start=4, end=36)
  O = matmul(concat(A1, A2, dim=1), B)
  output O
}
