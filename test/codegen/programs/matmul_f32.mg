# f32 matmuls take the plain path; program-level matmul of rank 4 with a
# broadcast batch dim.
graph matmul_f32 {
  A = input f32[2, 3, 20, 24]
  B = input f32[3, 24, 36]
  C = matmul(A, B)
  output C
}
