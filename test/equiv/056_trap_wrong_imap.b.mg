# a tile mapped along the wrong dim, shapes fitting
graph trap_wrong_imap_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = kernel(A, B) grid=[2] forloop=2 {
    a = tile(A, imap={x:1}, fmap=0)
    b = tile(B, fmap=0)
    save(accum(matmul(a, b)), O, omap={x:0})
  }
  output O
}
