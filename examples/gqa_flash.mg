# Hand-written flash-decoding μGraph of gqa.mg, in two kernels, with the
# overflow guard of softmax kept (FlashAttention's online softmax).
#
# Kernel 1 splits the 4096 keys over 16 blocks along z (256 keys each) and
# walks each block's share in 4 steps of 64, keeping the running row maximum
# m; it saves a partial numerator N = sum exp(s - Mj)·v and denominator
# D = sum exp(s - Mj) against the split's own maximum Mj, and Mj itself,
# kept in f32 (dtype=f32): rounded to bf16, a maximum near 100 would be off
# by up to 0.25, and so would every exponent computed from it.
# Kernel 2 walks the 16 splits of each row with the same online rescale:
# the partials are weighted by exp(Mj - M) for the running maximum M of the
# Mj, so no exponent is ever positive.
graph gqa_flash {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  N, D, M = kernel(Q, K, V) grid=[2, 16, 16] forloop=4 {
    q = tile(Q, imap={x:0, y:1})             # [1, 16, 64]: 16 query rows
    k = tile(K, imap={x:0, z:2}, fmap=2)     # [1, 64, 64]: 64 keys per step
    v = tile(V, imap={x:0, z:1}, fmap=1)     # [1, 64, 64]
    s = mul(matmul(q, k), 0.125)             # logits [1, 16, 64]
    r = reduce_max(s, dim=2)                 # [1, 16, 1]
    m = scan(r, op=max)                      # running row maximum
    e = exp(sub(s, m))                       # every exponent is <= 0
    n = accum(matmul(e, v), rescale=m)       # partial numerator [1, 16, 64]
    d = accum(reduce_sum(e, dim=2), rescale=m)   # partial denominator [1, 16, 1]
    mj = accum(r, op=max)                    # the split's maximum: the last m
    save(n, N, omap={x:0, y:1, z:2})         # N: [2, 256, 16*64]
    save(d, D, omap={x:0, y:1, z:2})         # D: [2, 256, 16]
    save(mj, M, omap={x:0, y:1, z:2}, dtype=f32)   # M: [2, 256, 16], f32
  }
  O = kernel(N, D, M) grid=[2, 16] forloop=16 {
    np = tile(N, imap={x:0, y:1}, fmap=2)    # [1, 16, 64]: split j's numerator
    dp = tile(D, imap={x:0, y:1}, fmap=2)    # [1, 16, 1]
    mp = tile(M, imap={x:0, y:1}, fmap=2)    # [1, 16, 1]: split j's maximum
    mm = scan(mp, op=max)                    # running maximum over the splits
    w = exp(sub(mp, mm))                     # exp(Mj - M) <= 1
    num = accum(mul(np, w), rescale=mm)      # [1, 16, 64]
    den = accum(mul(dp, w), rescale=mm)      # [1, 16, 1]
    save(div(num, den), O, omap={x:0, y:1})
  }
  output O
}
