# expect: equivalent
# exp(a + b) = exp(a) exp(b)
graph exp_of_sum_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(add(A, B))
  output O
}
