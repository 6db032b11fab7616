# expect: equivalent
# exp(a - b) = exp(a) / exp(b)
graph exp_of_difference_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = exp(sub(A, B))
  output O
}
