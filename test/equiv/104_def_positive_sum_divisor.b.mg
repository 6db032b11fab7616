# exp(y) + relu(z) > 0, and a positive constant factor keeps it so
graph def_positive_sum_divisor_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  Z = input f16[8, 16]
  O = div(mul(X, 2), mul(add(exp(Y), relu(Z)), 2))
  output O
}
