# Several kernels: a 3-D grid, a max accumulator, a block size, after-loop
# operations with numbers, shorthands on tiles, nested saves.
graph kernels {
  Q = input f32[4, 64, 32]
  K = input f32[4, 32, 256]
  M, S = kernel(Q, K) grid=[4, 2, 4] forloop=2 block=128 {
    q = tile(Q, imap={x:0, y:1})                 # [1, 32, 32]
    k = tile(K, imap={x:0, z:-1}, fmap=-1)       # [1, 32, 32]
    s = matmul(q, k)
    mx = accum(reduce_max(s, dim=-1), op=max)
    sm = accum(reduce_sum(exp(s), dim=2))
    save(mx, M, omap={x:0, y:1, z:2})
    save(mul(sm, 0.125), S, omap={x:0, y:1, z:2})
  }
  N = kernel(M) forloop=4 grid=[4] {
    m = tile(M, imap={x:0}, fmap=2)
    save(rms_norm(accum(softmax(m, dim=-1))), N, omap={x:0})
  }
  O = kernel(S) {
    save(accum(tile(S)), O)
  }
  output N, O
}
