# expect: equivalent
# 1 / sqrt(mean(y)) and rsqrt(mean(y)) are defined on the same inputs: mean(y) > 0
graph def_rsqrt_vs_inverse_sqrt_of_mean_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = div(X, sqrt(reduce_mean(Y, dim=1)))
  output O
}
