# (see the .a file)
graph layout_matmul_one_concat_operand_b {
  A1 = input f16[4, 16]
  A2 = input f16[4, 16]
  X = input f16[40, 8]
  Y = input f16[40, 8]
  B1 = mul(slice(X, dim=0, start=4, end=20), slice(Y, dim=0, start=4, end=20))
  B2 = mul(slice(slice(X, dim=0, start=4, end=40), dim=0, start=16, end=32), slice(Y, dim=0, start=20, end=36))
  O = add(matmul(A1, B1), matmul(A2, B2))
  output O
}
