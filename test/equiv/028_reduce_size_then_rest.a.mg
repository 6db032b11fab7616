# expect: equivalent
# a partial reduce_sum(size=) then the rest is the full sum
graph reduce_size_then_rest_a {
  X = input f16[8, 16]
  O = reduce_sum(X, dim=1)
  output O
}
