graph qk {
  Q = input f16[2, 8, 4]
  K = input f16[2, 4, 16]
  V = input f16[2, 16, 4]
  O = kernel(Q, K, V) grid=[2, 4] forloop=4 {
    t0 = tile(Q, imap={x:0, y:1})
    t1 = tile(K, imap={x:0}, fmap=2)
    t2 = square(t1)
    t3 = reduce_sum(t2, dim=1)
    t4 = div(t3, 4)
    t5 = square(t0)
    t6 = sqrt(t4)
    t7 = reduce_sum(t5, dim=2)
    t8 = div(t7, 4)
    t9 = sqrt(t8)
    t10 = div(t0, t9)
    t11 = matmul(t10, t1)
    t12 = div(t11, t6)
    t13 = div(t12, 2)
    t14 = reduce_max(t13, dim=2)
    t15 = scan(t14, op=max)
    t16 = sub(t13, t15)
    t17 = exp(t16)
    t18 = tile(V, imap={x:0}, fmap=1)
    t19 = matmul(t17, t18)
    t20 = reduce_sum(t17, dim=2)
    t21 = accum(t19, rescale=t15)
    t22 = accum(t20, rescale=t15)
    t23 = div(t21, t22)
    save(t23, O, omap={x:0, y:1})
  }
  output O
}
