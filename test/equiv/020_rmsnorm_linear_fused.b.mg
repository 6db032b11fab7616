# rms_norm then matmul, fused in one kernel with the normalization after the loop
graph rmsnorm_linear_fused_b {
  X = input f16[4, 64]
  W = input f16[64, 32]
  Y = kernel(X, W) grid=[4] forloop=4 {
    x = tile(X, fmap=1)
    w = tile(W, imap={x:1}, fmap=0)
    xw = accum(matmul(x, w))
    ss = accum(reduce_sum(square(x), dim=1))
    save(div(xw, sqrt(div(ss, 64))), Y, omap={x:1})
  }
  output Y
}
