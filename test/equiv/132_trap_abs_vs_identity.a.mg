# expect: not-equivalent
# abs(x) is not x
graph trap_abs_vs_identity_a {
  X = input f16[8, 16]
  O = abs(X)
  output O
}
