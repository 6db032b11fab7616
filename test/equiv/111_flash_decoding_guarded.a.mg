# expect: equivalent
# guarded flash decoding: per-split maxima, partials combined with an online
# rescale by exp(Mj - M)
graph flash_decoding_guarded_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = mul(matmul(Q, K), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
