# rsqrt(x) = 1 / sqrt(x)
graph rsqrt_is_inverse_sqrt_b {
  X = input f16[8, 8]
  O = div(1, sqrt(X))
  output O
}
