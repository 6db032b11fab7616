# One Llama-style decoder layer, one decode step, for 8 sequences (batch):
# hidden 512, 8 heads of 64, a KV cache of 1024 tokens per sequence and head,
# MLP 1408. Tensors are rank 4 [sequence, head, row, column] so that the
# per-head weights (pre-split) and each sequence's own cache broadcast through
# matmul's batch dims; the weights carry leading unit dims of their own
# (the search fuses a matmul whose operands have equal rank). The RMSNorm
# gains are folded into the next weights (Wq, Wg, Wu).
graph decoder_layer {
  X = input f16[8, 1, 1, 512]         # hidden state of the 8 sequences
  Wq = input f16[1, 8, 512, 64]       # Q projection, one slice per head
  K = input f16[8, 8, 64, 1024]       # key cache, transposed: [seq, head, 64, kv]
  V = input f16[8, 8, 1024, 64]       # value cache: [seq, head, kv, 64]
  Wo = input f16[1, 8, 64, 512]       # output projection, one slice per head
  Wg = input f16[1, 1, 512, 1408]     # MLP gate
  Wu = input f16[1, 1, 512, 1408]     # MLP up
  Wd = input f16[1, 1, 1408, 512]     # MLP down
  # attention block
  Q = matmul(rms_norm(X), Wq)                              # [8, 8, 1, 64]
  P = softmax(mul(matmul(Q, K), 0.125), dim=-1)            # [8, 8, 1, 1024]
  A = matmul(P, V)                                         # [8, 8, 1, 64]
  H = add(X, reduce_sum(matmul(A, Wo), dim=1))             # [8, 1, 1, 512]
  # MLP block
  N = rms_norm(H)
  M = mul(silu(matmul(N, Wg)), matmul(N, Wu))              # [8, 1, 1, 1408]
  Y = add(H, matmul(M, Wd))
  output Y
}
