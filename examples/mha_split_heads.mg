# Multi-head attention for one decode step, with the heads split and merged
# by reshape: the query token X attends over a context of 64 tokens whose
# hidden states are stored feature-major (Ct, one column per token); Wk and
# Wv are in PyTorch's [out, in] layout, so K and V come out head-major and
# every reshape below is a view (no copy): 8 heads of 64.
graph mha_split_heads {
  X = input f16[1, 512]
  Ct = input f16[512, 64]
  Wq = input f16[512, 512]
  WkT = input f16[512, 512]
  WvT = input f16[512, 512]
  Wo = input f16[512, 512]
  Q = reshape(matmul(X, Wq), shape=[8, 1, 64])        # head h is columns 64h .. 64h+63
  Kt = reshape(matmul(WkT, Ct), shape=[8, 64, -1])    # [8, 64, 64]: per head, K transposed
  Vt = reshape(matmul(WvT, Ct), shape=[8, 64, -1])    # per head, V transposed
  S = mul(matmul(Q, Kt), 0.125)                       # [8, 1, 64], scaled by 1/sqrt(64)
  P = softmax(S, dim=-1)
  Ot = matmul(Vt, reshape(P, shape=[8, 64, 1]))       # [8, 64, 1]: per head, O transposed
  O = reshape(Ot, shape=[1, 512])                     # heads merged back
  Y = matmul(O, Wo)
  output Y
}
