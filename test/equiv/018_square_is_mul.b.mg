# square(x) = x x
graph square_is_mul_b {
  X = input f16[8, 16]
  O = mul(X, X)
  output O
}
