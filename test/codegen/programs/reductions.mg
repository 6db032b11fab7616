# Reductions at program level (lowered with an accumulator over the reduced
# dim) and in a body, short (one thread per output) and long (one warp per
# output, shuffles), with size > 1, mean and max.
# expect-fast-path: warp-shuffle
graph reductions {
  X = input f16[8, 16, 128]
  S = reduce_sum(X, dim=2)
  M = reduce_max(X, dim=1)
  A = reduce_mean(X, dim=0)
  G = reduce_sum(X, dim=-1, size=8)
  R = kernel(X) grid=[8] {
    x = tile(X, imap={x:0})
    short = reduce_max(x, dim=1)
    long = reduce_mean(x, dim=2)
    save(accum(add(reduce_sum(short, dim=2, size=4), reduce_sum(long, dim=1))), R, omap={x:0})
  }
  output S, M, A, G, R
}
