# expect: equivalent
# neg is field negation: neg(neg(x)) = x exactly
graph neg_neg_a {
  X = input f16[8, 16]
  O = neg(neg(X))
  output O
}
