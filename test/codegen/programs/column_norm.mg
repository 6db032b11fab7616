# QKNorm's key norms: a sum over the tile's rows (an outer dim), one output
# per column, then sqrt(mean) broadcast back over the rows. The column sums
# take one thread per column, not a warp (a warp's lanes would read one
# element a row apart, all in one shared-memory bank); sqrt(mean), read by a
# 64 times larger division, is computed once per column into shared memory.
# The row sums (the innermost dim, fewer outputs than threads) keep the warp.
# expect-fast-path: warp-shuffle
graph column_norm {
  K = input f16[2, 64, 512]
  Y = kernel(K) grid=[2] forloop=4 {
    k = tile(K, imap={x:0}, fmap=2)
    n = sqrt(div(reduce_sum(square(k), dim=1), 64))
    rows = reduce_sum(k, dim=2)
    y = add(div(k, n), rows)
    save(accum(y), Y, omap={x:0})
  }
  output Y
}
