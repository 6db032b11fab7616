# Saves with omap onto every dim and in every order of the grid dims.
graph omap_every_dim {
  A = input f16[6, 8, 16]
  P, Q = kernel(A) grid=[3, 2, 4] {
    a = tile(A, imap={x:0, y:1, z:2})
    t = accum(mul(a, 2))
    save(t, P, omap={x:0, y:1, z:2})
    save(t, Q, omap={x:2, y:0, z:1})
  }
  output P, Q
}
