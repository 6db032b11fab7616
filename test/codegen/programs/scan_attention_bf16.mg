# Online-softmax attention in bf16 with 16 query rows per block and eight
# steps of 32 keys: bf16 tensor-core operands (exp(s - m) rounded to bf16
# only as the matmul's operand copy; the row sum reads it in f32).
# Q times 240 gives logits up to about 100.
# expect-fast-path: mma.sync.m16n8k16
# expect-fast-path: f16/bf16 operand copies for tensor cores
# check-variant: logits100 --scale Q=240 --ulps 2
graph scan_attention_bf16 {
  Q = input bf16[2, 32, 64]
  K = input bf16[2, 64, 256]
  V = input bf16[2, 256, 64]
  O = kernel(Q, K, V) grid=[2, 2] forloop=8 {
    q = tile(Q, imap={x:0, y:1})             # [1, 16, 64]
    k = tile(K, imap={x:0}, fmap=2)          # [1, 64, 32]
    v = tile(V, imap={x:0}, fmap=1)          # [1, 32, 64]
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)   # [1, 16, 1]
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
