# expect: equivalent
# a maximum over a concat that holds a partial maximum beside plain values:
# max(max(X) u Y) = max(X u Y) (the partial maximum keeps its multiset)
graph layout_max_of_concat_with_partial_max_a {
  X = input f16[4, 16]
  Y = input f16[4, 8]
  M = reduce_max(concat(X, Y, dim=1), dim=1)
  output M
}
