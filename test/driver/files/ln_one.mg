# ln.mg with a one-pass variance E[x^2] - mean^2 in f32 kernel bodies: equal
# over the reals (mirage-equiv proves it), but at inputs 1000 + noise the two
# terms near 1e6 cancel and the variance is lost: the numerics check rejects it.
graph ln {
  X = input f16[16, 1024]
  MU, VAR = kernel(X) grid=[16] {
    x = tile(X, imap={x:0})
    mean = div(accum(reduce_sum(x, dim=1)), 1024)
    save(mean, MU, omap={x:0})
    save(sub(div(accum(reduce_sum(square(x), dim=1)), 1024), square(mean)), VAR, omap={x:0})
  }
  Y = kernel(X, MU, VAR) grid=[16] {
    x = accum(tile(X, imap={x:0}))
    m = accum(tile(MU, imap={x:0}))
    v = accum(tile(VAR, imap={x:0}))
    save(div(sub(x, m), sqrt(add(v, 0.00001))), Y, omap={x:0})
  }
  output Y
}
