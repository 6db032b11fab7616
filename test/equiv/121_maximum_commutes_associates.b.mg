# maximum is commutative and associative (one multiset)
graph maximum_commutes_associates_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = maximum(X, maximum(reduce_max(X, dim=1), Y))
  output O
}
