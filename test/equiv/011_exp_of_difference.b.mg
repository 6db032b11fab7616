# exp(a - b) = exp(a) / exp(b)
graph exp_of_difference_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = div(exp(A), exp(B))
  output O
}
