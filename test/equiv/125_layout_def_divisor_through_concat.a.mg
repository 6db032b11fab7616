# expect: equivalent
# dividing by a concat is dividing each part by its operand: each program's
# divisors are non-zero where the other is defined (a concat is non-zero
# exactly where all its operands are)
graph layout_def_divisor_through_concat_a {
  X = input f16[4, 16]
  Y = input f16[4, 8]
  Z = input f16[4, 8]
  O = div(X, concat(Y, Z, dim=1))
  output O
}
