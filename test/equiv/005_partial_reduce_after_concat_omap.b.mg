# reduce_sum(size=) over partials concatenated by an omap
graph partial_reduce_after_concat_omap_b {
  A = input f16[4, 32]
  B = input f16[32, 8]
  Pp = kernel(A, B) grid=[4] {
    a = tile(A, imap={x:1})
    b = tile(B, imap={x:0})
    save(accum(matmul(a, b)), Pp, omap={x:1})
  }
  O = reduce_sum(Pp, dim=1, size=8)
  output O
}
