# Attention as PyTorch users write prefill: K is kept [heads, keys, dim] and
# transposed in the score matmul.
graph prefill_transpose_k {
  Q = input f16[4, 256, 64]
  K = input f16[4, 256, 64]
  V = input f16[4, 256, 64]
  S = mul(matmul(Q, transpose(K, dim0=1, dim1=2)), 0.125)
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
