# broadcasting row sums instead of column sums
graph trap_wrong_broadcast_b {
  X = input f16[8, 8]
  O = add(X, transpose(reduce_sum(X, dim=1), dim0=0, dim1=1))
  output O
}
