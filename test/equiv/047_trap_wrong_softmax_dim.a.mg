# expect: not-equivalent
# softmax over the wrong dim of a square tensor
graph trap_wrong_softmax_dim_a {
  X = input f16[8, 8]
  O = softmax(X, dim=1)
  output O
}
