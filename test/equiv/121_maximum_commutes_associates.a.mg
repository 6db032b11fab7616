# expect: equivalent
# maximum is commutative and associative (one multiset)
graph maximum_commutes_associates_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = maximum(maximum(X, Y), reduce_max(X, dim=1))
  output O
}
