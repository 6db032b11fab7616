# Online softmax at odd tile sizes: 5 query rows per block, 9 keys per
# step, head dims 12 and 7, block=50 (not whole warps): no 16-byte vectors,
# no tensor-core fragments, every construct on its simple path; the
# matmul operand exp(s - m) is rounded to f16 as the simple matmul reads it.
# check-variant: logits60 --scale Q=300 --ulps 2
graph scan_odd_tiles {
  Q = input f16[3, 10, 12]
  K = input f16[3, 12, 45]
  V = input f16[3, 45, 7]
  O = kernel(Q, K, V) grid=[3, 2] forloop=5 block=50 {
    q = tile(Q, imap={x:0, y:1})             # [1, 5, 12]
    k = tile(K, imap={x:0}, fmap=2)          # [1, 12, 9]
    v = tile(V, imap={x:0}, fmap=1)          # [1, 9, 7]
    s = matmul(q, k)
    m = scan(reduce_max(s, dim=2), op=max)   # [1, 5, 1]
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
