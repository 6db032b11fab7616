# expect: not-equivalent
# broadcasting row sums instead of column sums
graph trap_wrong_broadcast_a {
  X = input f16[8, 8]
  O = add(X, reduce_sum(X, dim=0))
  output O
}
