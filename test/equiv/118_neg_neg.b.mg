# neg is field negation: neg(neg(x)) = x exactly
graph neg_neg_b {
  X = input f16[8, 16]
  O = X
  output O
}
