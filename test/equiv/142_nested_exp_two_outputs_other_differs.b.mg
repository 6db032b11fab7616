# the first softmax scaled by 1.001 in the second output
graph nested_exp_two_outputs_other_differs_b {
  X = input f16[4, 16]
  W = input f16[16, 8]
  E = exp(X)
  P = div(E, reduce_sum(E, dim=1))
  F = exp(matmul(P, W))
  O = div(F, reduce_sum(F, dim=1))
  R = mul(P, 1.001)
  output O
  output R
}
