# scan and rescaled accums in every home: an element-wise scan (no
# reduction) read by an element-wise rescaled accum held in registers
# (2 per thread), a row sum computed before the scan (so it cannot write
# into its rescaled accum directly: the factors are not known yet; it is
# materialized and the accum rescales in its own statement), a rescaled
# accum in shared memory (16 elements per thread are too many for
# registers), two accums sharing one scan, and the max accum of the same
# operand, equal to the last running maximum. f32: no rounding anywhere
# (the default tolerance: f32 row sums of +-80 cancel, so their order
# shows at several f32 ulps of the result).
# check-variant: large --scale A=80
graph scan_homes {
  A = input f32[8, 256]
  B = input f32[8, 2048]
  P, R, W, MX = kernel(A, B) grid=[2] forloop=4 {
    a = tile(A, imap={x:0}, fmap=1)          # [4, 64]
    b = tile(B, imap={x:0}, fmap=1)          # [4, 512]
    r = reduce_sum(a, dim=1)                 # [4, 1], before the scan
    t = mul(a, 2)
    m = scan(t, op=max)                      # [4, 64], element-wise running max
    mr = scan(reduce_max(a, dim=1), op=max)  # [4, 1]
    p = accum(exp(sub(t, m)), rescale=m)     # registers (2 per thread)
    rs = accum(r, rescale=mr)                # registers, its own statement
    w = accum(mul(b, exp(sub(reduce_max(a, dim=1), mr))), rescale=mr)   # [4, 512]: shared
    save(p, P, omap={x:0})
    save(rs, R, omap={x:0})
    save(w, W, omap={x:0})
    save(accum(reduce_max(a, dim=1), op=max), MX, omap={x:0})
  }
  output P, R, W, MX
}
