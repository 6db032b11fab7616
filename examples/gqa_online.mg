# Hand-written one-kernel attention of gqa.mg with FlashAttention's online
# softmax: each block walks the 4096 keys in 64 steps of 64 and keeps the
# running row maximum m (scan), so every exponent is <= 0 and nothing
# overflows f16 whatever the size of the logits. The accumulators are
# rescaled by exp(m_prev - m) whenever the maximum grows, so after the loop
#   n = sum_i exp(s_i - M) v_i   and   l = sum_i exp(s_i - M)
# for the row maximum M, and n / l is softmax(S)·V.
graph gqa_online {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 16] forloop=64 {
    q = tile(Q, imap={x:0, y:1})             # [1, 16, 64]: 16 query rows
    k = tile(K, imap={x:0}, fmap=2)          # [1, 64, 64]: 64 keys per step
    v = tile(V, imap={x:0}, fmap=1)          # [1, 64, 64]
    s = mul(matmul(q, k), 0.125)             # logits [1, 16, 64]
    m = scan(reduce_max(s, dim=2), op=max)   # running row maximum [1, 16, 1]
    e = exp(sub(s, m))                       # every exponent is <= 0
    n = accum(matmul(e, v), rescale=m)       # numerator [1, 16, 64]
    l = accum(reduce_sum(e, dim=2), rescale=m)   # denominator [1, 16, 1]
    save(div(n, l), O, omap={x:0, y:1})
  }
  output O
}
