# 4 chained decoder layers (scripts/decoder_chain.py --distinct 4).
graph decoder_4 {
  X = input f16[8, 1, 1, 512]
  Wq_1 = input f16[1, 8, 512, 64]
  K_1 = input f16[8, 8, 64, 1024]
  V_1 = input f16[8, 8, 1024, 64]
  Wo_1 = input f16[1, 8, 64, 512]
  Wg_1 = input f16[1, 1, 512, 1408]
  Wu_1 = input f16[1, 1, 512, 1408]
  Wd_1 = input f16[1, 1, 1408, 512]
  Wq_2 = input f16[1, 8, 512, 64]
  K_2 = input f16[8, 8, 64, 512]
  V_2 = input f16[8, 8, 512, 64]
  Wo_2 = input f16[1, 8, 64, 512]
  Wg_2 = input f16[1, 1, 512, 1024]
  Wu_2 = input f16[1, 1, 512, 1024]
  Wd_2 = input f16[1, 1, 1024, 512]
  Wq_3 = input f16[1, 8, 512, 64]
  K_3 = input f16[8, 8, 64, 2048]
  V_3 = input f16[8, 8, 2048, 64]
  Wo_3 = input f16[1, 8, 64, 512]
  Wg_3 = input f16[1, 1, 512, 1536]
  Wu_3 = input f16[1, 1, 512, 1536]
  Wd_3 = input f16[1, 1, 1536, 512]
  Wq_4 = input f16[1, 8, 512, 64]
  K_4 = input f16[8, 8, 64, 1536]
  V_4 = input f16[8, 8, 1536, 64]
  Wo_4 = input f16[1, 8, 64, 512]
  Wg_4 = input f16[1, 1, 512, 2048]
  Wu_4 = input f16[1, 1, 512, 2048]
  Wd_4 = input f16[1, 1, 2048, 512]
  # layer 1
  Q_1 = matmul(rms_norm(X), Wq_1)
  P_1 = softmax(mul(matmul(Q_1, K_1), 0.125), dim=-1)
  A_1 = matmul(P_1, V_1)
  H_1 = add(X, reduce_sum(matmul(A_1, Wo_1), dim=1))
  N_1 = rms_norm(H_1)
  M_1 = mul(silu(matmul(N_1, Wg_1)), matmul(N_1, Wu_1))
  Y_1 = add(H_1, matmul(M_1, Wd_1))
  # layer 2
  Q_2 = matmul(rms_norm(Y_1), Wq_2)
  P_2 = softmax(mul(matmul(Q_2, K_2), 0.125), dim=-1)
  A_2 = matmul(P_2, V_2)
  H_2 = add(Y_1, reduce_sum(matmul(A_2, Wo_2), dim=1))
  N_2 = rms_norm(H_2)
  M_2 = mul(silu(matmul(N_2, Wg_2)), matmul(N_2, Wu_2))
  Y_2 = add(H_2, matmul(M_2, Wd_2))
  # layer 3
  Q_3 = matmul(rms_norm(Y_2), Wq_3)
  P_3 = softmax(mul(matmul(Q_3, K_3), 0.125), dim=-1)
  A_3 = matmul(P_3, V_3)
  H_3 = add(Y_2, reduce_sum(matmul(A_3, Wo_3), dim=1))
  N_3 = rms_norm(H_3)
  M_3 = mul(silu(matmul(N_3, Wg_3)), matmul(N_3, Wu_3))
  Y_3 = add(H_3, matmul(M_3, Wd_3))
  # layer 4
  Q_4 = matmul(rms_norm(Y_3), Wq_4)
  P_4 = softmax(mul(matmul(Q_4, K_4), 0.125), dim=-1)
  A_4 = matmul(P_4, V_4)
  H_4 = add(Y_3, reduce_sum(matmul(A_4, Wo_4), dim=1))
  N_4 = rms_norm(H_4)
  M_4 = mul(silu(matmul(N_4, Wg_4)), matmul(N_4, Wu_4))
  Y = add(H_4, matmul(M_4, Wd_4))
  output Y
}
