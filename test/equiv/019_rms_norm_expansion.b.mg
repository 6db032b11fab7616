# rms_norm is its definition
graph rms_norm_expansion_b {
  X = input f16[4, 16]
  O = div(X, sqrt(reduce_mean(square(X), dim=1)))
  output O
}
