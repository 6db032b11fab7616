# expect: equivalent
# add is commutative
graph add_commutes_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(A, B)
  output O
}
