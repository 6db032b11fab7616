# examples/qknorm_gqa.mg at reduced shapes.
graph qknorm_gqa {
  Q = input f16[2, 32, 64]
  K = input f16[2, 64, 256]
  V = input f16[2, 256, 64]
  S = matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1))
  O = matmul(softmax(S, dim=-1), V)
  output O
}
