# The one-kernel μGraph mirage-opt finds for qknorm_gqa.mg (31.18 µs on the
# H100 model against 98.2 µs for the input's 16 launches), as --emit-mg
# writes it.
#
# Each block takes two query rows of one KV head (y) and half of the head
# dim of V (z), and walks the 4096 keys in 32 steps of 128: it normalizes its
# rows of Q and the step's tile of K (RMSNorm over the head dim), computes
# the scaled scores, and keeps an online softmax (running maximum t15, the
# accumulators rescaled to it) of the scores times V. Every row block
# normalizes the same tiles of K again: cheap on a GPU next to the traffic
# it saves, and the values the verifier shares between blocks
# (docs/verifier.md, "Values blocks share"). mirage-bench --section verify
# measures its check.
graph qknorm_gqa {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  O = kernel(Q, K, V) grid=[2, 64, 2] forloop=32 {
    t0 = tile(Q, imap={x:0, y:1})
    t1 = tile(K, imap={x:0}, fmap=2)
    t2 = square(t1)
    t3 = reduce_sum(t2, dim=1)
    t4 = div(t3, 64)
    t5 = square(t0)
    t6 = sqrt(t4)
    t7 = reduce_sum(t5, dim=2)
    t8 = div(t7, 64)
    t9 = sqrt(t8)
    t10 = div(t0, t9)
    t11 = matmul(t10, t1)
    t12 = div(t11, t6)
    t13 = div(t12, 8)
    t14 = reduce_max(t13, dim=2)
    t15 = scan(t14, op=max)
    t16 = sub(t13, t15)
    t17 = exp(t16)
    t18 = tile(V, imap={x:0, z:2}, fmap=1)
    t19 = matmul(t17, t18)
    t20 = reduce_sum(t17, dim=2)
    t21 = accum(t19, rescale=t15)
    t22 = accum(t20, rescale=t15)
    t23 = div(t21, t22)
    save(t23, O, omap={x:0, y:1, z:2})
  }
  output O
}
