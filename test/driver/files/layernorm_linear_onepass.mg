# Hand-written one-kernel μGraph of examples/layernorm_linear.mg with the one-pass
# variance E[x²] - μ² (equal over the reals, cancels in f32 when a row's
# mean is large against its spread): mirage-equiv proves it equal, the
# numerics check rejects it at offset inputs (test/driver/numerics_test.cpp).
graph layernorm_linear_onepass {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  Y = kernel(X, W) grid=[96] forloop=32 {
    x = tile(X, fmap=1)
    w = tile(W, imap={x:1}, fmap=0)
    xw = accum(matmul(x, w))
    s1 = accum(reduce_sum(x, dim=1))
    s2 = accum(reduce_sum(square(x), dim=1))
    cw = accum(reduce_sum(w, dim=0))
    mu = div(s1, 4096)
    var = sub(div(s2, 4096), square(mu))
    y = div(sub(xw, mul(mu, cw)), sqrt(add(var, 1e-5)))
    save(y, Y, omap={x:1})
  }
  output Y
}
