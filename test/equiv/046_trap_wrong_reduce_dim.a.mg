# expect: not-equivalent
# reduction over the wrong dim of a square tensor
graph trap_wrong_reduce_dim_a {
  X = input f16[8, 8]
  O = reduce_sum(X, dim=1)
  output O
}
