# expect: unprovable
# relu(relu(x)) = relu(x) holds, but relu is a random function here
graph unprovable_relu_of_relu_a {
  X = input f16[8, 16]
  O = relu(relu(X))
  output O
}
