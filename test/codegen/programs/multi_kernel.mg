# Three launches: two custom kernels and a pre-defined operator, with the
# intermediates N, D and T in the caller's workspace.
graph multi_kernel {
  X = input f16[4, 32, 64]
  N, D = kernel(X) grid=[4, 2] forloop=2 {
    x = tile(X, imap={x:0, y:1}, fmap=2)
    n = accum(exp(x))
    d = accum(reduce_sum(x, dim=2))
    save(n, N, omap={x:0, y:1})
    save(d, D, omap={x:0, y:1})
  }
  T = mul(N, 0.5)
  O = kernel(T, D) grid=[4] {
    t = tile(T, imap={x:0})
    d = tile(D, imap={x:0})
    save(accum(add(reduce_sum(t, dim=2, size=4), d)), O, omap={x:0})
  }
  output O
}
