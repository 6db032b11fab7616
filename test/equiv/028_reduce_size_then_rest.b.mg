# a partial reduce_sum(size=) then the rest is the full sum
graph reduce_size_then_rest_b {
  X = input f16[8, 16]
  O = reduce_sum(reduce_sum(X, dim=1, size=4), dim=1)
  output O
}
