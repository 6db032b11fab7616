# Found by mirage-fuzz (see transpose_size_one.mg): the leading dims of a
# rank-4 bf16 tensor swapped, one of them of extent 1.
graph transpose_size_one_bf16 {
  B = input bf16[1, 2, 23, 23]
  TB = transpose(B, dim0=0, dim1=1)
  output TB
}
