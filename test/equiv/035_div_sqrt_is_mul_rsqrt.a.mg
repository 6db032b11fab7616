# expect: equivalent
# x / sqrt(y) = x rsqrt(y)
graph div_sqrt_is_mul_rsqrt_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = div(A, sqrt(B))
  output O
}
