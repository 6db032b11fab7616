# flash decoding whose score matmul is a rank-1 product
graph trap_rank1_attention_kernel_b {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  N, D = kernel(Q, K, V) grid=[2, 2, 4] forloop=2 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0, z:2}, fmap=2)
    v = tile(V, imap={x:0, z:1}, fmap=1)
    e = exp(matmul(reduce_sum(q, dim=2), reduce_sum(k, dim=1)))
    save(accum(matmul(e, v)), N, omap={x:0, y:1, z:2})
    save(accum(reduce_sum(e, dim=2)), D, omap={x:0, y:1, z:2})
  }
  O = kernel(N, D) grid=[2, 2] {
    np = tile(N, imap={x:0, y:1})
    dp = tile(D, imap={x:0, y:1})
    save(div(accum(reduce_sum(np, dim=2, size=8)), accum(reduce_sum(dp, dim=2))), O, omap={x:0, y:1})
  }
  output O
}
