# expect: not-equivalent
# a near miss: the halves joined in the other order (a rotation, not the identity)
graph layout_concat_other_order_a {
  X = input f16[8, 64]
  O = exp(X)
  output O
}
