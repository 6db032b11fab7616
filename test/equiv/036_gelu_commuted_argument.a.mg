# expect: equivalent
# gelu of a commuted sum
graph gelu_commuted_argument_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = gelu(add(A, B))
  output O
}
