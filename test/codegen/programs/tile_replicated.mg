# Unmapped grid dims replicate: every block along y sees the same W tile,
# every block along x the same bias; z is of extent 1.
graph tile_replicated {
  X = input f16[8, 48]
  W = input f16[48]
  Bias = input f16[1, 16]
  Z = kernel(X, W, Bias) grid=[2, 3, 1] {
    x = tile(X, imap={x:0, y:1})
    w = tile(W, imap={y:0})
    b = tile(Bias)
    save(accum(add(mul(x, w), b)), Z, omap={x:0, y:1})
  }
  output Z
}
