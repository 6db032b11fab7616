# Hand-written one-kernel μGraph of examples/layernorm_linear.mg with shifted
# sums: each block takes the mean of its own 64-column chunk of every row
# (xs, a tile that does not walk the loop) as the shift c, accumulates
# d = x - c, d² and d·W beside the column sums of W, and forms
# var = E[d²] - E[d]² after the loop. Any constant shift gives the same
# value over the reals (mirage-equiv proves it equal); a shift within a few
# standard deviations of the row's mean keeps E[d]² small, so nothing large
# cancels at rows of 1000 + noise and the numerics check accepts it
# (test/driver/numerics_test.cpp). The search does not build it: the
# chunk's mean is not a term of the program (docs/search.md).
graph layernorm_linear_shifted {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  Y = kernel(X, W) grid=[64] forloop=32 {
    xs = tile(X, imap={x:1})
    c = reduce_mean(xs, dim=1)
    x = tile(X, fmap=1)
    w = tile(W, imap={x:1}, fmap=0)
    d = sub(x, c)
    dw = accum(matmul(d, w))
    s1 = accum(reduce_sum(d, dim=1))
    s2 = accum(reduce_sum(square(d), dim=1))
    cw = accum(reduce_sum(w, dim=0))
    m = div(s1, 4096)
    var = sub(div(s2, 4096), square(m))
    y = div(sub(dw, mul(m, cw)), sqrt(add(var, 1e-5)))
    save(y, Y, omap={x:1})
  }
  output Y
}
