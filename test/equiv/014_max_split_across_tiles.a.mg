# expect: equivalent
# a maximum split across blocks equals the maximum of the whole
graph max_split_across_tiles_a {
  X = input f16[8, 64]
  O = reduce_max(X, dim=1)
  output O
}
