# expect: not-equivalent
# exp without the normalization of softmax
graph trap_softmax_unnormalized_a {
  X = input f16[8, 16]
  O = softmax(X, dim=-1)
  output O
}
