# expect: equivalent
# rsqrt(x) = 1 / sqrt(x)
graph rsqrt_is_inverse_sqrt_a {
  X = input f16[8, 8]
  O = rsqrt(X)
  output O
}
