# expect: not-equivalent
# a maximum split across blocks along the wrong dim
graph trap_max_split_wrong_dim_a {
  X = input f16[8, 8]
  O = reduce_max(X, dim=1)
  output O
}
