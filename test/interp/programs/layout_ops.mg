# reshape, concat and slice only move elements: exact values (row-major
# order), an inferred extent, a three-way concat along the middle dim and
# RoPE's rotate_half.
# in X: 0 1 2 3 4 5 6 7 8 9 10 11
# in Y: 100 101 102 103
# out R: 0 1 2 3 4 5 6 7 8 9 10 11
# out C: 0 1 102 103 0 1 2 3 4 5 102 103 4 5 6 7 8 9 102 103 8 9 10 11
# out S: 1 2 5 6 9 10
# out H: -2 -3 0 1 -6 -7 4 5 -10 -11 8 9
# tol: 0
graph layout_ops {
  X = input f32[3, 4]
  Y = input f32[2, 2]
  R = reshape(X, shape=[2, -1, 3])
  X3 = reshape(X, shape=[3, 2, 2])
  B = add(mul(slice(X3, dim=1, start=1, end=2), 0), slice(reshape(Y, shape=[1, 2, 2]), dim=1, start=1, end=2))
  C = concat(slice(X3, dim=1, start=0, end=1), B, X3, dim=1)
  S = slice(X, dim=1, start=1, end=3)
  H = concat(mul(slice(X, dim=-1, start=2, end=4), -1), slice(X, dim=1, start=0, end=2), dim=1)
  output R, C, S, H
}
