# expect: equivalent
# QK-normalized attention at program level against one kernel in which
# every row block normalizes the same tiles of K again (values the blocks
# share: they depend on the head and the loop step, not on the row block)
# and every loop step normalizes the same rows of Q again (loop-invariant
# values). The verifier computes each such value once per head and step
# (kernel_eval.cpp); the suite also compares that with every block
# computing everything.
graph qk {
  Q = input f16[2, 8, 4]
  K = input f16[2, 4, 16]
  V = input f16[2, 16, 4]
  S = mul(matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1)), 0.5)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
