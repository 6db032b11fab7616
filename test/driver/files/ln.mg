# LayerNorm without its affine part, two-pass as PyTorch computes it: the
# input program of the numerics-check tests (test/driver/numerics_test.cpp).
graph ln {
  X = input f16[16, 1024]
  D = sub(X, reduce_mean(X, dim=1))
  Y = div(D, sqrt(add(reduce_mean(square(D), dim=1), 0.00001)))
  output Y
}
