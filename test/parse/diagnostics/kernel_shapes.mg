# Shape rules apply to tiles as they do to tensors; shorthands too.
graph kernel_shapes {
  X = input f16[16, 64]
  Y = kernel(X) grid=[4] forloop=2 {
    x = tile(X, imap={x:0}, fmap=1)
    m = matmul(x, x)
    n = rms_norm(x, dim=2)
    save(accum(softmax(x, dim=-1)), Y, omap={x:0})
  }
  output Y
}
# EXPECT: 6:9: error: matmul inner dims disagree: [4, 32] and [4, 32] (32 vs 4)
# EXPECT: 7:25: error: dim 2 is out of range for a tensor of rank 2
