# expect: equivalent
# sub(a, b) = a + (-1) b
graph sub_is_add_neg_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = sub(A, B)
  output O
}
