# expect: not-proven
# relu(y) + relu(z) is zero where both are <= 0
graph def_relu_sum_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  Z = input f16[8, 16]
  D = add(relu(Y), relu(Z))
  O = div(mul(X, D), D)
  output O
}
