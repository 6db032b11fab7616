# (see the .a file)
graph layout_max_of_concat_with_partial_max_b {
  X = input f16[4, 16]
  Y = input f16[4, 8]
  M = reduce_max(concat(reduce_max(X, dim=1), Y, dim=1), dim=1)
  output M
}
