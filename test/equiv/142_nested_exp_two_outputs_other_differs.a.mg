# expect: not-equivalent
# two outputs: the nested softmax agrees over the reals (fingerprints differ),
# the plain one differs by a factor; the second is refuted by the fields alone
graph nested_exp_two_outputs_other_differs_a {
  X = input f16[4, 16]
  W = input f16[16, 8]
  P = softmax(X, dim=-1)
  O = softmax(matmul(P, W), dim=-1)
  output O
  output P
}
