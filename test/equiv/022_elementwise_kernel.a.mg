# expect: equivalent
# an element-wise op tiled over a 2-D grid
graph elementwise_kernel_a {
  X = input f16[8, 16]
  O = silu(X)
  output O
}
