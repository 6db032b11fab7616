# a wrong fmap whose shapes still fit (through a transpose)
graph trap_wrong_fmap_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = kernel(A, B) forloop=2 {
    a = tile(A, fmap=1)
    b = tile(B, fmap=1)
    save(accum(matmul(a, transpose(b, dim0=0, dim1=1))), O)
  }
  output O
}
