# x / (y - z) = -x / (z - y): z - y is non-zero exactly where y - z is
graph def_negated_divisor_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  Z = input f16[8, 16]
  O = div(mul(X, -1), sub(Z, Y))
  output O
}
