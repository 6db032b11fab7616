# expect: equivalent
# reduce_sum(size=) over partials concatenated by an omap
graph partial_reduce_after_concat_omap_a {
  A = input f16[4, 32]
  B = input f16[32, 8]
  O = matmul(A, B)
  output O
}
