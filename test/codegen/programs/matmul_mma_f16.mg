# Tensor-core matmul (m16n8k16) in a loop with the sum kept in mma
# fragments; a second matmul reads an exp of the first from shared memory.
# expect-fast-path: mma.sync
# expect-fast-path: register accumulator
graph matmul_mma_f16 {
  Q = input f16[2, 64, 32]
  K = input f16[2, 32, 128]
  V = input f16[2, 128, 32]
  N, D = kernel(Q, K, V) grid=[2, 2, 2] forloop=2 {
    q = tile(Q, imap={x:0, y:1})
    k = tile(K, imap={x:0, z:2}, fmap=2)
    v = tile(V, imap={x:0, z:1}, fmap=1)
    e = exp(matmul(q, k))
    save(accum(matmul(e, v)), N, omap={x:0, y:1, z:2})
    save(accum(reduce_sum(e, dim=2)), D, omap={x:0, y:1, z:2})
  }
  O = div(reduce_sum(N, dim=2, size=32), reduce_sum(D, dim=2))
  output O
}
