# reshape: another number of elements, two -1s, a -1 that does not divide,
# a bad extent, a missing or malformed shape.
graph layout_reshape {
  X = input f16[16, 64]
  A = reshape(X, shape=[16, 65])
  B = reshape(X, shape=[-1, 8, -1])
  C = reshape(X, shape=[-1, 7])
  D = reshape(X, shape=[16, 0, 64])
  E = reshape(X)
  F = reshape(X, shape=4)
  G = reshape(X, shape=[2, 2, 2, 2, 64])
  output X
}
# EXPECT: 5:7: error: reshape of [16, 64] (1024 elements) to [16, 65] (1040 elements) changes the number of elements
# EXPECT: 6:32: error: reshape's shape has a second -1; at most one extent can be inferred
# EXPECT: 7:7: error: reshape of [16, 64] (1024 elements) to [-1, 7]: 1024 is not a multiple of 7, so the -1 cannot be inferred
# EXPECT: 8:29: error: an extent must be a positive integer below 2^31 (or -1), got 0
# EXPECT: 9:7: error: 'reshape' needs a 'shape=' argument
# EXPECT: 10:24: error: 'shape' takes a list of extents such as [2, -1, 64], found number '4'
# EXPECT: 11:7: error: reshape's shape has 1 to 4 extents, got 5
