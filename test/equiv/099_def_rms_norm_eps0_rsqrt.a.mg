# expect: equivalent
# rms_norm with eps = 0 divides by sqrt(m), m = mean(x^2): where it is defined,
# m >= 0 and sqrt(m) != 0, so m > 0 and rsqrt(m) is defined; and back
graph def_rms_norm_eps0_rsqrt_a {
  X = input f16[8, 16]
  O = rms_norm(X)
  output O
}
