# Launches of the same code share one __global__ function (docs/codegen.md,
# "Shared functions"): the two branches below lower to the same kernels at
# the same shapes: nine launches of five functions, each launch still reading
# and writing its own tensors.
graph shared_functions {
  X = input f16[16, 64]
  Y = input f16[16, 64]
  W = input f16[64, 32]
  A = exp(mul(X, 0.25))
  B = exp(mul(Y, 0.25))
  C = matmul(A, W)
  D = matmul(B, W)
  E = add(C, D)
  F = transpose(X, dim0=0, dim1=1)
  G = transpose(Y, dim0=0, dim1=1)
  output E, F, G
}
