# expect: equivalent
# relu(x) + relu(x) = 2 relu(x)
graph relu_linear_a {
  X = input f16[8, 16]
  O = add(relu(X), relu(X))
  output O
}
