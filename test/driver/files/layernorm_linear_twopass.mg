# Hand-written two-kernel μGraph of examples/layernorm_linear.mg, two-pass
# as PyTorch computes LayerNorm: the first kernel takes each row's mean, the
# second centres the tiles of X, accumulates (X - μ)·W beside the sum of
# squares of X - μ, and divides after the loop. No large terms cancel: the
# numerics check accepts it at offset inputs (test/driver/numerics_test.cpp).
graph layernorm_linear_twopass {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  MU = kernel(X) grid=[16] forloop=4 {
    x = tile(X, imap={x:0}, fmap=1)
    save(div(accum(reduce_sum(x, dim=1)), 4096), MU, omap={x:0}, dtype=f32)
  }
  Y = kernel(X, W, MU) grid=[96] forloop=32 {
    x = tile(X, fmap=1)
    w = tile(W, imap={x:1}, fmap=0)
    m = tile(MU)
    c = sub(x, m)
    cw = accum(matmul(c, w))
    ss = accum(reduce_sum(square(c), dim=1))
    y = div(cw, sqrt(add(div(ss, 4096), 1e-5)))
    save(y, Y, omap={x:1})
  }
  output Y
}
