# matmul: plain, and with batch dims broadcast (B has none; E's batch of 1
# stretches against A's 2).
# A[0] = [[1 2 3] [4 5 6]], A[1] = [[1 0 0] [0 1 0]]; B = [[7 8] [9 10] [11 12]].
# in A: 1 2 3 4 5 6 1 0 0 0 1 0
# in B: 7 8 9 10 11 12
# in E: 1 1 1 1 1 1
# out P: 58 64 139 154 7 8 9 10
# out Q: 6 6 15 15 1 1 1 1
# tol: 0
graph matmul {
  A = input f32[2, 2, 3]
  B = input f32[3, 2]
  E = input f32[1, 3, 2]
  P = matmul(A, B)
  Q = matmul(A, E)
  output P, Q
}
