# expect: equivalent
# exp(y) + relu(z) > 0, and a positive constant factor keeps it so
graph def_positive_sum_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  Z = input f16[8, 16]
  O = div(X, add(exp(Y), relu(Z)))
  output O
}
