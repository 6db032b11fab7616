# neg is exact: x - y = x + neg(y)
graph sub_is_add_of_neg_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = add(neg(Y), X)
  output O
}
