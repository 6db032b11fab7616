# concat: mismatched dims, different ranks, one operand, a number, a dim out
# of range, no dim.
graph layout_concat {
  X = input f16[16, 64]
  Y = input f16[16, 32]
  Z = input f16[16]
  A = concat(X, Y, dim=0)
  B = concat(X, Z, dim=0)
  C = concat(X, dim=0)
  D = concat(X, 2, dim=1)
  E = concat(X, Y, dim=2)
  F = concat(X, Y)
  G = concat(X, Y, dim=1)
  output G
}
# EXPECT: 7:7: error: concat operands [16, 64] and [16, 32] differ in dim 1 (64 vs 32); only the concat dim 0 may differ
# EXPECT: 8:7: error: concat operands [16, 64] and [16] have different ranks
# EXPECT: 9:7: error: 'concat' joins two or more tensors, got 1
# EXPECT: 10:17: error: 'concat' takes a tensor, not a number
# EXPECT: 11:24: error: dim 2 is out of range for a tensor of rank 2
# EXPECT: 12:7: error: 'concat' needs a 'dim=' argument
