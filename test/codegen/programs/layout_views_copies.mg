# reshape, concat and slice at program level: reshapes are views (no launch,
# the same buffer), slice and concat copy kernels; outputs that are views are
# copied at the end; a three-operand concat along the middle dim.
graph layout_views_copies {
  X = input f16[4, 6, 8]
  Y = input f16[4, 2, 8]
  W = input f16[8, 16]
  R = reshape(X, shape=[24, 8])
  P = matmul(R, W)                                 # [24, 16], reads the view
  Q = reshape(P, shape=[4, 6, 16])
  C = concat(X, Y, X, dim=1)                       # [4, 14, 8]
  S = slice(C, dim=-1, start=2, end=7)             # [4, 14, 5]
  T = exp(slice(Q, dim=0, start=1, end=3))         # [2, 6, 16]
  V = reshape(S, shape=[-1])
  output Q, S, T, V
}
