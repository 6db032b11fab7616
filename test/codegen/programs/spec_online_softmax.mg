# The one-kernel online-softmax attention of mg-language.md ("Online
# softmax"), with the inputs its comments imply: 16 query rows per block,
# 64 steps of 64 keys. The running row maximum and its rescale factors live
# in f32 shared memory; the numerator accumulates in mma fragments that are
# multiplied by the factor before each step's product is added.
# expect-fast-path: mma.sync.m16n8k16
# expect-fast-path: register accumulator
# expect-fast-path: f16/bf16 operand copies for tensor cores
# expect-hopper-path: TMA bulk copies
# check-variant: logits60 --fast-only --scale Q=145 --ulps 2
graph spec_online_softmax {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})                # [1, 16, 64]
    k = tile(K, imap={x:0}, fmap=2)             # [1, 64, 64]: 64 keys per step
    v = tile(V, imap={x:0}, fmap=1)             # [1, 64, 64]
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)      # running row maximum [1, 16, 1]
    e = exp(sub(s, m))                          # every exponent is <= 0
    n = accum(matmul(e, v), rescale=m)
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
