# Group-query attention, decoding step (Mirage's GQA benchmark).
# Two KV heads; each attends 256 query rows (the query heads of its group)
# over a 4096-token KV cache with head dim 64.
graph gqa {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  S = mul(matmul(Q, K), 0.125)   # scaled by 1/sqrt(64), the head dim
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
