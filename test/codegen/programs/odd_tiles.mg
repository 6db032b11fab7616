# Odd tile sizes: no 16-byte vectors, no tensor-core fragments fit, so
# every construct takes its simple path; block=50 is not a whole number of
# warps.
graph odd_tiles {
  A = input f16[15, 21]
  B = input f16[21, 10]
  C = kernel(A, B) grid=[5, 2] forloop=3 block=50 {
    a = tile(A, imap={x:0}, fmap=1)
    b = tile(B, imap={y:1}, fmap=0)
    r = accum(matmul(a, b))
    n = accum(reduce_sum(square(a), dim=1))
    save(div(r, add(n, 1)), C, omap={x:0, y:1})
  }
  output C
}
