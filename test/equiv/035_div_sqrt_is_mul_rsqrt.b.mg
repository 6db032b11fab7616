# x / sqrt(y) = x rsqrt(y)
graph div_sqrt_is_mul_rsqrt_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = mul(A, rsqrt(B))
  output O
}
