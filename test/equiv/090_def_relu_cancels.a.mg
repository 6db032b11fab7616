# expect: not-proven
# x relu(y) / relu(y) is undefined where y <= 0, x is defined everywhere:
# not equivalent over the reals (mg-language.md, "Where a program is defined")
graph def_relu_cancels_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = div(mul(X, relu(Y)), relu(Y))
  output O
}
