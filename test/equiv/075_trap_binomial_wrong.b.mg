# (a + b)^2 is not a^2 + b^2
graph trap_binomial_wrong_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(square(A), square(B))
  output O
}
