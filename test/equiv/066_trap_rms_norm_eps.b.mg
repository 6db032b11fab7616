# rms_norm with and without eps
graph trap_rms_norm_eps_b {
  X = input f16[4, 16]
  O = rms_norm(X, dim=-1, eps=1e-6)
  output O
}
