# examples/gqa.mg in bf16.
# Two KV heads; each attends 256 query rows (the query heads of its group)
# over a 4096-token KV cache with head dim 64.
graph gqa_bf16 {
  Q = input bf16[2, 256, 64]
  K = input bf16[2, 64, 4096]
  V = input bf16[2, 4096, 64]
  S = mul(matmul(Q, K), 0.125)   # scaled by 1/sqrt(64), the head dim
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
