# Attention with logit soft-capping (Gemma 2): the scaled logits S are
# squashed to (-30, 30) by 30·tanh(S / 30) before the softmax. Decoding step
# with gqa.mg's shapes: two KV heads, 256 query rows each, 4096 keys, head
# dim 64.
graph softcap_attention {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  S = mul(matmul(Q, K), 0.125)   # scaled by 1/sqrt(64), the head dim
  C = mul(tanh(div(S, 30)), 30)  # soft cap at 30
  P = softmax(C, dim=-1)
  O = matmul(P, V)
  output O
}
