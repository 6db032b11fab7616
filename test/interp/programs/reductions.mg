# Reductions keep the reduced dim; dims may be negative; reduce_sum with
# size=s gives out[.., c, ..] = sum_j A[.., c + s*j, ..].
# A[2, 4, 2]: A[0] = [[1 2] [3 4] [5 6] [7 8]], A[1] = [[-1 0] [2 -3] [4 4] [0 9]].
# in A: 1 2 3 4 5 6 7 8 -1 0 2 -3 4 4 0 9
# out S1: 16 20 5 10
# out M2: 1.5 3.5 5.5 7.5 -0.5 -0.5 4 4.5
# out X0: 1 2 3 4 5 6 7 9
# out SZ: 6 8 10 12 3 4 2 6
# out MX: 7 8 4 9
# tol: 0
graph reductions {
  A = input f32[2, 4, 2]
  S1 = reduce_sum(A, dim=1)
  M2 = reduce_mean(A, dim=-1)
  X0 = reduce_max(A, dim=0)
  SZ = reduce_sum(A, dim=-2, size=2)
  MX = reduce_max(A, dim=-2)
  output S1, M2, X0, SZ, MX
}
