# Numbers are operands of add, sub, mul and div only, and must be in range.
graph numbers {
  X = input f16[16, 64]
  A = exp(1)
  B = 3
  C = matmul(X, 2)
  D = add(1, 2)
  E = mul(X, 1e999)
  F = rms_norm(X, eps=-1e400)
  G = add(X, -0.5e-3)
  output G
}
# EXPECT: 4:11: error: 'exp' takes a tensor, not a number
# EXPECT: 5:7: error: a number can only be an operand of add, sub, mul or div
# EXPECT: 6:17: error: 'matmul' takes a tensor, not a number
# EXPECT: 7:7: error: 'add' needs at least one tensor operand
# EXPECT: 8:14: error: number '1e999' is out of range
# EXPECT: 9:23: error: number '-1e400' is out of range
