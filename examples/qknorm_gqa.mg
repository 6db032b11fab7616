# QK-normalized group-query attention: RMSNorm over the head dim of Q (its
# last dim) and of K (dim 1, since K is stored transposed), then attention.
graph qknorm_gqa {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  S = mul(matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1)), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
