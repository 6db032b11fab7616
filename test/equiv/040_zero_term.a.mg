# expect: equivalent
# adding 0 * C changes nothing
graph zero_term_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  C = input f16[8, 8]
  O = matmul(A, B)
  output O
}
