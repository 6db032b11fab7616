# expect: equivalent
# both programs divide by relu(y): they are undefined on the same inputs
graph def_same_relu_divisor_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = div(X, relu(Y))
  output O
}
