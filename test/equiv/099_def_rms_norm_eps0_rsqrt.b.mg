# rms_norm with eps = 0 divides by sqrt(m), m = mean(x^2): where it is defined,
# m >= 0 and sqrt(m) != 0, so m > 0 and rsqrt(m) is defined; and back
graph def_rms_norm_eps0_rsqrt_b {
  X = input f16[8, 16]
  O = mul(X, rsqrt(reduce_mean(square(X), dim=1)))
  output O
}
