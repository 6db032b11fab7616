# Hand-written flash-decoding μGraph of gqa.mg, in two kernels, WITHOUT the
# overflow guard (kept for comparison with gqa_flash.mg, which has it).
#
# softmax(S)·V = (exp(S)·V) / rowsum(exp(S)): the max subtraction of softmax
# cancels between numerator and denominator, so it is not needed here (the
# 1/sqrt(64) scale keeps exp(S) inside f16 only for inputs of unit size: once
# logits pass about 11, exp(S) overflows f16 in kernel 1's stored partials).
# mirage-opt never chooses this form for gqa.mg, whose softmax guards its exp.
#
# Kernel 1 splits the 4096 keys over 16 blocks along z (256 keys each) and
# walks each block's share in 4 steps of 64; every block keeps a partial
# numerator (exp(S)·V) and denominator (row sums of exp(S)).
# Kernel 2 adds the 16 partials and divides.
graph gqa_flash_unguarded {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  N, D = kernel(Q, K, V) grid=[2, 16, 16] forloop=4 {
    q = tile(Q, imap={x:0, y:1})             # [1, 16, 64]: 16 query rows
    k = tile(K, imap={x:0, z:2}, fmap=2)     # [1, 64, 64]: 64 keys per step
    v = tile(V, imap={x:0, z:1}, fmap=1)     # [1, 64, 64]
    e = exp(mul(matmul(q, k), 0.125))        # [1, 16, 64]
    n = accum(matmul(e, v))                  # partial numerator [1, 16, 64]
    d = accum(reduce_sum(e, dim=2))          # partial denominator [1, 16, 1]
    save(n, N, omap={x:0, y:1, z:2})         # N: [2, 256, 16*64]
    save(d, D, omap={x:0, y:1, z:2})         # D: [2, 256, 16]
  }
  O = kernel(N, D) grid=[2, 16] {
    np = tile(N, imap={x:0, y:1})            # [1, 16, 1024]
    dp = tile(D, imap={x:0, y:1})            # [1, 16, 16]
    num = accum(reduce_sum(np, dim=2, size=64))   # sum of the 16 partials: [1, 16, 64]
    den = accum(reduce_sum(dp, dim=2))       # [1, 16, 1]
    save(div(num, den), O, omap={x:0, y:1})
  }
  output O
}
