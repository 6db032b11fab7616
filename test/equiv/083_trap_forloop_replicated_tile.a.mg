# expect: not-equivalent
# a tile without fmap summed over the for-loop counts every element F times
graph trap_forloop_replicated_tile_a {
  X = input f16[8, 64]
  O = reduce_sum(X, dim=1)
  output O
}
