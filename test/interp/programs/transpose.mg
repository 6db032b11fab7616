# transpose swaps two dims: T[k, j, i] = A[i, j, k]; U swaps the last two.
# in A: 1 2 3 4 5 6 7 8 9 10 11 12
# out T: 1 7 4 10 2 8 5 11 3 9 6 12
# out U: 1 4 2 5 3 6 7 10 8 11 9 12
# tol: 0
graph transpose {
  A = input f32[2, 2, 3]
  T = transpose(A, dim0=0, dim1=-1)
  U = transpose(A, dim0=-1, dim1=-2)
  output T, U
}
