# gqa.mg in two kernels that keep softmax's overflow guard: kernel 1 takes the
# row maximum M of the logits, kernel 2 exponentiates S - M (never above 1)
# and divides the weighted sum by the row sum. The numerics check accepts it
# where it rejects the unguarded examples/gqa_flash.mg.
graph gqa {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  M = kernel(Q, K) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    save(accum(reduce_max(mul(matmul(q, k), 0.125), dim=2), op=max), M, omap={x:0, y:1})
  }
  O = kernel(Q, K, V, M) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0}, fmap=2)
    v = tile(V, imap={x:0}, fmap=1)
    m = tile(M, imap={x:0, y:1})
    e = exp(sub(mul(matmul(q, k), 0.125), m))
    save(div(accum(matmul(e, v)), accum(reduce_sum(e, dim=2))), O, omap={x:0, y:1})
  }
  output O
}
