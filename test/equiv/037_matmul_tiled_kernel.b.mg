# a matmul tiled over a 2-D grid with a K loop
graph matmul_tiled_kernel_b {
  A = input f16[8, 16]
  B = input f16[16, 8]
  O = kernel(A, B) grid=[2, 2] forloop=4 {
    a = tile(A, imap={x:0}, fmap=1)
    b = tile(B, imap={y:1}, fmap=0)
    save(accum(matmul(a, b)), O, omap={x:0, y:1})
  }
  output O
}
