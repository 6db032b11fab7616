# Shape rules: broadcasting, matmul, dims.
graph shapes {
  X = input f16[16, 64]
  Y = input f16[64, 32]
  V = input f16[64]
  B3 = input f16[3, 16, 64]
  B2 = input f16[2, 64, 32]
  A = add(X, Y)
  M = matmul(X, X)
  R = matmul(V, Y)
  P = matmul(B3, B2)
  Q = matmul(B3, Y)
  S = reduce_sum(X, dim=2)
  T = reduce_max(X, dim=-3)
  U = transpose(X, dim0=0, dim1=-3)
  W = reduce_sum(X, dim=1, size=48)
  Z = reduce_sum(X, dim=1, size=0)
  N = rms_norm(X, dim=2)
  O = softmax(X, dim=-5)
  output Q
}
# EXPECT: 8:7: error: 'add' operands: shapes [16, 64] and [64, 32] do not broadcast
# EXPECT: 9:7: error: matmul inner dims disagree: [16, 64] and [16, 64] (64 vs 16)
# EXPECT: 10:7: error: matmul needs operands of rank >= 2, got [64] and [64, 32]
# EXPECT: 11:7: error: matmul batch dims of [3, 16, 64] and [2, 64, 32] do not broadcast
# EXPECT: 13:25: error: dim 2 is out of range for a tensor of rank 2
# EXPECT: 14:25: error: dim -3 is out of range for a tensor of rank 2
# EXPECT: 15:33: error: dim1 -3 is out of range for a tensor of rank 2
# EXPECT: 16:7: error: size 48 does not divide extent 64 of dim 1
# EXPECT: 17:33: error: size must be a positive integer, got 0
# EXPECT: 18:23: error: dim 2 is out of range for a tensor of rank 2
# EXPECT: 19:22: error: dim -5 is out of range for a tensor of rank 2
