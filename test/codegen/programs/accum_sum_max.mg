# accum with op=sum and op=max over an 8-step loop, with operators after the
# loop that combine both; the max accumulator starts at -infinity.
# Accumulators small enough stay in registers across the loop.
# expect-fast-path: register accumulator
graph accum_sum_max {
  X = input f16[16, 256]
  M, L = kernel(X) grid=[4] forloop=8 {
    x = tile(X, imap={x:0}, fmap=1)
    m = accum(reduce_max(x, dim=1), op=max)
    s = accum(reduce_sum(exp(x), dim=1))
    mx = accum(x, op=max)
    save(sub(mx, m), M, omap={x:0})
    save(add(sqrt(s), m), L, omap={x:0})
  }
  output M, L
}
