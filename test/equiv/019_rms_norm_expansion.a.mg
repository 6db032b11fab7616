# expect: equivalent
# rms_norm is its definition
graph rms_norm_expansion_a {
  X = input f16[4, 16]
  O = rms_norm(X, dim=-1)
  output O
}
