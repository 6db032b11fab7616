# (a c) / (b c) is undefined where c = 0, a / b is not
graph def_extra_common_factor_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  C = input f16[8, 16]
  O = div(mul(X, C), mul(Y, C))
  output O
}
