# expect: not-proven
# log(x) is undefined where x <= 0: x + 0·log(x) is not x there
graph def_log_not_positive_a {
  X = input f16[8, 16]
  O = mul(X, 1)
  output O
}
