# expect: equivalent
# neg is exact: x - y = x + neg(y)
graph sub_is_add_of_neg_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = sub(X, Y)
  output O
}
