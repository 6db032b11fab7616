# reduction over the wrong dim of a square tensor
graph trap_wrong_reduce_dim_b {
  X = input f16[8, 8]
  O = transpose(reduce_sum(X, dim=0), dim0=0, dim1=1)
  output O
}
