# expect: equivalent
# reducing two dims in either order
graph reduce_order_a {
  X = input f16[4, 8, 16]
  O = reduce_sum(reduce_sum(X, dim=1), dim=2)
  output O
}
