# the exponent is taken against the running maximum of s, but the
# accumulators are rescaled by the running maximum of 2 s
graph trap_online_rescale_by_other_scan_b {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  O = kernel(Q, K, V) grid=[2, 2] forloop=4 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    v = tile(V, imap={x:0}, fmap=1)
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)
    m2 = scan(reduce_max(mul(s, 2), dim=2), op=max)
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m2)
    l = accum(reduce_sum(e, dim=2), rescale=m2)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
