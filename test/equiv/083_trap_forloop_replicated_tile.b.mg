# a tile without fmap summed over the for-loop counts every element F times
graph trap_forloop_replicated_tile_b {
  X = input f16[8, 64]
  O = kernel(X) grid=[2] forloop=4 {
    t = tile(X, imap={x:0})
    save(accum(reduce_sum(t, dim=1)), O, omap={x:0})
  }
  output O
}
