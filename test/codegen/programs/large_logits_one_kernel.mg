# One-kernel attention without a maximum (softmax(S)·V as (exp(S)·V) /
# rowsum(exp(S)) in one kernel). exp(S) feeds a tensor-core matmul and a row
# sum. The contract keeps it f32 and rounds it to f16 only as the matmul's
# operand: past a logit of 11 the numerator overflows to inf while the row
# sum stays finite, so the result is inf, not NaN (as when exp(S) was stored
# in f16 for both). Q times 36 gives logits up to about 13 (some rows
# overflow), times 145 about 60. Reduced shapes: 2 heads, 32 query rows,
# 256 keys in 4 steps of 64.
# expect-fast-path: mma.sync.m16n8k16
# expect-fast-path: f16/bf16 operand copies for tensor cores
# check-variant: logits13 --scale Q=36 --ulps 2
# check-variant: logits60 --scale Q=145 --ulps 2
graph attention_one_kernel {
  Q = input f16[2, 32, 64]
  K = input f16[2, 64, 256]
  V = input f16[2, 256, 64]
  O = kernel(Q, K, V) grid=[2, 2] forloop=4 {
    q = tile(Q, imap={x:0, y:1})             # [1, 16, 64]
    k = tile(K, imap={x:0}, fmap=2)          # [1, 64, 64]
    v = tile(V, imap={x:0}, fmap=1)          # [1, 64, 64]
    e = exp(mul(matmul(q, k), 0.125))        # [1, 16, 64], read by a matmul and a row sum
    n = accum(matmul(e, v))
    l = accum(reduce_sum(e, dim=2))
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
