# expect: not-equivalent
# the near miss of 140: the second softmax of 2·Y is not the softmax of Y; the
# fingerprints cannot refute it alone (nested exps), evaluation on real inputs
# does
graph trap_nested_softmax_scaled_logits_a {
  X = input f16[4, 16]
  W = input f16[16, 8]
  P = softmax(X, dim=-1)
  Y = matmul(P, W)
  O = softmax(Y, dim=-1)
  output O
}
