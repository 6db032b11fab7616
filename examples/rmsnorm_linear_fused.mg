# Hand-written one-kernel μGraph of rmsnorm_linear.mg.
#
# rms_norm(X)·W = (X·W) / sqrt(mean(X²)) row by row, so the normalization
# moves after the matmul and the sum of squares is accumulated in the same
# for-loop that walks the 4096-long reduction dim.
graph rmsnorm_linear_fused {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  Y = kernel(X, W) grid=[96] forloop=32 {
    x = tile(X, fmap=1)                      # [16, 128], same for every block
    w = tile(W, imap={x:1}, fmap=0)          # [128, 64]: this block's 64 columns
    xw = accum(matmul(x, w))                 # [16, 64]
    ss = accum(reduce_sum(square(x), dim=1)) # [16, 1]: sum of squares of each row
    y = div(xw, sqrt(div(ss, 4096)))
    save(y, Y, omap={x:1})
  }
  output Y
}
