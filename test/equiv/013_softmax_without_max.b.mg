# the max subtraction of softmax cancels
graph softmax_without_max_b {
  X = input f16[8, 16]
  E = exp(X)
  O = div(E, reduce_sum(E, dim=1))
  output O
}
