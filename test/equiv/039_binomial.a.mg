# expect: equivalent
# (a + b)^2 = a^2 + 2ab + b^2
graph binomial_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = square(add(A, B))
  output O
}
