# Every element-wise operator at program level, with constants and NumPy
# broadcasting; each becomes its own one-kernel launch.
graph elementwise_all {
  A = input f16[4, 24, 40]
  B = input f16[24, 1]
  C = input f16[40]
  s = add(A, B)
  d = sub(C, s)
  m = mul(d, 0.5)
  q = div(m, add(square(B), 1))
  e = exp(q)
  r = sqrt(add(e, 2))
  t = rsqrt(r)
  u = silu(t)
  v = gelu(sub(u, C))
  w = relu(sub(0.25, v))
  output w
}
