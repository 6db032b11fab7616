# expect: not-equivalent
# a wrong fmap whose shapes still fit (through a transpose)
graph trap_wrong_fmap_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, B)
  output O
}
