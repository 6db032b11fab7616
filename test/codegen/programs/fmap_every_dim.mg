# fmap on each dim of a rank-3 tensor, with accumulators summing over the
# for-loop; imap and fmap on the same dim combine (block chunk, then loop part).
graph fmap_every_dim {
  A = input f32[8, 12, 16]
  S0, S1, S2 = kernel(A) grid=[2] forloop=4 {
    a0 = tile(A, imap={x:1}, fmap=0)
    a1 = tile(A, imap={x:2}, fmap=1)
    a2 = tile(A, imap={x:2}, fmap=2)
    save(accum(a0), S0, omap={x:1})
    save(accum(a1), S1, omap={x:2})
    save(accum(a2), S2, omap={x:2})
  }
  output S0, S1, S2
}
