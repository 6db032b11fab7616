# A kernel body's matmul of a rank-3 activation tile by a rank-2 weight tile
# (the weight broadcast over the batch dim), as the search builds for
# X[batch, seq, hidden] · W[hidden, out]: RMSNorm+Linear of batched
# activations in one kernel.
graph matmul_broadcast_weight {
  X = input f16[4, 16, 256]
  W = input f16[256, 128]
  Y = kernel(X, W) grid=[2, 2, 2] forloop=4 {
    x = tile(X, imap={x:0, y:1}, fmap=2)    # [2, 8, 64]
    w = tile(W, imap={z:1}, fmap=0)         # [64, 64], the same for every batch
    xw = accum(matmul(x, w))                # [2, 8, 64]
    ss = accum(reduce_sum(square(x), dim=2))
    save(div(xw, sqrt(div(ss, 256))), Y, omap={x:0, y:1, z:2})
  }
  output Y
}
