# expect: equivalent
# a tile without fmap is the same every iteration: F copies weighted 1/F sum to one
graph forloop_replicated_tile_scaled_a {
  X = input f16[8, 64]
  O = reduce_sum(X, dim=1)
  output O
}
