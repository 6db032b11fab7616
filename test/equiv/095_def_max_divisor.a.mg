# expect: not-proven
# the row maximum of y can be zero
graph def_max_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  M = reduce_max(Y, dim=1)
  O = div(mul(X, M), M)
  output O
}
