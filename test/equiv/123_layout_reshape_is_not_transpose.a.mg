# expect: not-equivalent
# reshape keeps row-major order; a transpose of the same shape reorders: never equal
graph layout_reshape_is_not_transpose_a {
  X = input f16[8, 16]
  O = reshape(X, shape=[16, 8])
  output O
}
