# expect: equivalent
# transposing twice is the identity
graph transpose_twice_a {
  X = input f16[4, 8, 16]
  O = add(X, 0)
  output O
}
