# sub(a, b) = a + (-1) b
graph sub_is_add_neg_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(A, mul(B, -1))
  output O
}
