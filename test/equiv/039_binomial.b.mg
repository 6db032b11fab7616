# (a + b)^2 = a^2 + 2ab + b^2
graph binomial_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(add(square(A), mul(mul(A, B), 2)), square(B))
  output O
}
