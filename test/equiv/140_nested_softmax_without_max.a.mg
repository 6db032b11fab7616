# expect: not-proven
# softmax, matmul, softmax: the second softmax's argument comes from an exp, so
# it has no residue mod Q and exp(Y - max(Y)) is evaluated as an uninterpreted
# function; against exp(Y) / sum(exp(Y)) (equal over the reals) the
# fingerprints differ, which must not be reported as a difference
graph nested_softmax_without_max_a {
  X = input f16[4, 16]
  W = input f16[16, 8]
  P = softmax(X, dim=-1)
  Y = matmul(P, W)
  O = softmax(Y, dim=-1)
  output O
}
