# expect: not-equivalent
# a tile mapped along the wrong dim, shapes fitting
graph trap_wrong_imap_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, B)
  output O
}
