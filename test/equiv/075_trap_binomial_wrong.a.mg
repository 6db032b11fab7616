# expect: not-equivalent
# (a + b)^2 is not a^2 + b^2
graph trap_binomial_wrong_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = square(add(A, B))
  output O
}
