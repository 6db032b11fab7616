# expect: equivalent
# a matmul tiled over a 2-D grid with a K loop
graph matmul_tiled_kernel_a {
  A = input f16[8, 16]
  B = input f16[16, 8]
  O = matmul(A, B)
  output O
}
