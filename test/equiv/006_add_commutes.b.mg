# add is commutative
graph add_commutes_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(B, A)
  output O
}
