# A number as the first operand of sub and div inside a body (c - x, c / x),
# which the search now applies where the program has them.
graph number_first {
  X = input f16[32, 64]
  C = input f16[32, 1]
  Z, W = kernel(X, C) grid=[4] {
    x = tile(X, imap={x:0})
    c = tile(C, imap={x:0})
    a = relu(sub(0.25, x))
    b = div(1, c)
    save(accum(sub(a, div(2, add(square(x), 1)))), Z, omap={x:0})
    save(accum(b), W, omap={x:0})
  }
  output Z, W
}
