# expect: not-equivalent
# maximum(x, 0) is relu, minimum(x, 0) is not
graph trap_maximum_zero_vs_minimum_zero_a {
  X = input f16[8, 16]
  O = maximum(X, 0)
  output O
}
