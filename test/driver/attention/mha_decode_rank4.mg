# Multi-head attention for a decode step in rank 4: batch 2, 8 heads, 4 query
# rows per head (speculative decoding's draft tokens) over a 1024-token cache.
graph mha_decode_rank4 {
  Q = input f16[2, 8, 4, 64]
  K = input f16[2, 8, 64, 1024]
  V = input f16[2, 8, 1024, 64]
  S = mul(matmul(Q, K), 0.125)
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
