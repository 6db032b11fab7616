# transpose at program level and inside a body (fused into the save, and
# materialized where a matmul reads it).
graph transpose {
  X = input f16[4, 16, 32]
  T = transpose(X, dim0=1, dim1=2)
  Y = kernel(X) grid=[4] {
    x = tile(X, imap={x:0})
    t = transpose(x, dim0=-1, dim1=-2)
    save(accum(matmul(t, x)), Y, omap={x:0})
  }
  U = kernel(X) grid=[2] {
    x = tile(X, imap={x:1})
    save(accum(transpose(exp(x), dim0=0, dim1=2)), U, omap={x:1})
  }
  output T, Y, U
}
