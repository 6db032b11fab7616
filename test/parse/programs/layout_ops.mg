# reshape, concat and slice: an inferred extent, negative dims, three
# operands, slices of slices; the printer writes the inferred shape.
graph layout_ops {
  X = input f16[4, 6, 8]
  Y = input f16[4, 2, 8]
  R = reshape(X, shape=[2, -1, 8])          # [2, 12, 8]
  C = concat(X, Y, X, dim=1)                # [4, 14, 8]
  S = slice(C, dim=-2, start=3, end=10)     # [4, 7, 8]
  T = slice(slice(S, dim=2, start=0, end=6), dim=0, start=1, end=2)
  M = reshape(T, shape=[42])
  output R, S, M
}
