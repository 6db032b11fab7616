# examples/rmsnorm_linear_fused.mg at reduced shapes: a 1-kernel μGraph
# whose matmul accumulates in mma fragments while the loop also sums squares.
# expect-fast-path: register accumulator
# expect-fast-path: cp.async double buffering
graph rmsnorm_linear_fused {
  X = input f16[16, 512]
  W = input f16[512, 256]
  Y = kernel(X, W) grid=[4] forloop=4 {
    x = tile(X, fmap=1)
    w = tile(W, imap={x:1}, fmap=0)
    xw = accum(matmul(x, w))
    ss = accum(reduce_sum(square(x), dim=1))
    y = div(xw, sqrt(div(ss, 512)))
    save(y, Y, omap={x:1})
  }
  output Y
}
