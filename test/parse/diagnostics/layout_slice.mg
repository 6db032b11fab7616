# slice: out of range, start >= end, a negative start, missing keywords,
# unknown keywords, two operands.
graph layout_slice {
  X = input f16[16, 64]
  A = slice(X, dim=1, start=0, end=65)
  B = slice(X, dim=1, start=8, end=8)
  C = slice(X, dim=0, start=-1, end=4)
  D = slice(X, dim=1, start=0)
  E = slice(X, dim=1, start=0, end=4, step=2)
  F = slice(X, X, dim=0, start=0, end=1)
  G = slice(X, dim=1, start=0.5, end=4)
  H = slice(X, dim=-3, start=0, end=4)
  I = slice(X, dim=-1, start=60, end=64)
  output I
}
# EXPECT: 5:7: error: slice [0, 65) of dim 1 (extent 64) is out of range: it needs 0 <= start < end <= 64
# EXPECT: 6:7: error: slice [8, 8) of dim 1 (extent 64) is out of range: it needs 0 <= start < end <= 64
# EXPECT: 7:7: error: slice [-1, 4) of dim 0 (extent 16) is out of range: it needs 0 <= start < end <= 16
# EXPECT: 8:7: error: 'slice' needs a 'end=' argument
# EXPECT: 9:39: error: 'slice' has no argument 'step' (expected dim, start, end)
# EXPECT: 10:7: error: 'slice' takes 1 operand, got 2
# EXPECT: 11:29: error: 'start' must be an integer, found number '0.5'
# EXPECT: 12:20: error: dim -3 is out of range for a tensor of rank 2
