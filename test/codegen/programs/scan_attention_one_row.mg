# Online-softmax attention with one query row per block: the running row
# maximum (scan) and the rescale factors are [1, 1, 1]; the tensor-core
# matmuls have m = 1 (fragment rows past it are zero padding). Four steps
# of 32 keys.
# expect-fast-path: mma.sync.m16n8k16
# expect-fast-path: register accumulator
# check-variant: logits60 --scale Q=145 --ulps 2
graph scan_attention_one_row {
  Q = input f16[2, 8, 64]
  K = input f16[2, 64, 128]
  V = input f16[2, 128, 64]
  O = kernel(Q, K, V) grid=[2, 8] forloop=4 {
    q = tile(Q, imap={x:0, y:1})             # [1, 1, 64]
    k = tile(K, imap={x:0}, fmap=2)          # [1, 64, 32]
    v = tile(V, imap={x:0}, fmap=1)          # [1, 32, 64]
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)   # [1, 1, 1]
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
