# expect: not-equivalent
# rms_norm with and without eps
graph trap_rms_norm_eps_a {
  X = input f16[4, 16]
  O = rms_norm(X, dim=-1, eps=0)
  output O
}
