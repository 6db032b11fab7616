# save(..., dtype=f32): kernel 1 keeps per-split row maxima M in f32 (float
# in the workspace), kernel 2 tiles them (an f32 tile, loaded element by
# element, walked by its for-loop with a scan), and a pre-defined operator
# reads them at program level (an f32 operand of a lowered kernel).
# Partial sums are saved in f16 against their split's maximum and combined
# with the online rescale, as in flash decoding.
# check-variant: large --scale X=100 --ulps 2
graph save_f32_kernels {
  X = input f16[16, 512]
  S, M = kernel(X) grid=[16, 4] forloop=2 {
    x = tile(X, imap={x:0, y:1}, fmap=1)     # [1, 64]: row x, split y, two steps
    r = reduce_max(x, dim=1)
    m = scan(r, op=max)
    s = accum(reduce_sum(exp(sub(x, m)), dim=1), rescale=m)
    save(s, S, omap={x:0, y:1})              # S: [16, 4]
    save(accum(r, op=max), M, omap={x:0, y:1}, dtype=f32)   # M: [16, 4] f32
  }
  T = kernel(S, M) grid=[16] forloop=4 {
    sp = tile(S, imap={x:0}, fmap=1)         # [1, 1]: split j's sum
    mp = tile(M, imap={x:0}, fmap=1)         # [1, 1]: split j's maximum (f32)
    mm = scan(mp, op=max)
    save(accum(mul(sp, exp(sub(mp, mm))), rescale=mm), T, omap={x:0})
  }
  D = sub(M, reduce_max(M, dim=1))           # f32 operand at program level
  output T, D
}
