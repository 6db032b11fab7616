# exp(a + b) = exp(a) exp(b)
graph exp_of_sum_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = mul(exp(A), exp(B))
  output O
}
