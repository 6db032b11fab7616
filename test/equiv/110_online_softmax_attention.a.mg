# expect: equivalent
# one-kernel attention with the online softmax (scan and rescale) equals softmax
# attention: sum_i exp(s_i - m_i) v_i exp(m_i - M) = sum_i exp(s_i - M) v_i
graph online_softmax_attention_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = mul(matmul(Q, K), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
