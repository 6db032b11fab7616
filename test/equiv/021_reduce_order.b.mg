# reducing two dims in either order
graph reduce_order_b {
  X = input f16[4, 8, 16]
  O = reduce_sum(reduce_sum(X, dim=2), dim=1)
  output O
}
