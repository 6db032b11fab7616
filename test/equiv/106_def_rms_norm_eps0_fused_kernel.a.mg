# expect: equivalent
# rms_norm with eps = 0 against a one-kernel form that accumulates the sum of
# squares in the for-loop and divides by sqrt(sum / n) in the body: the
# divisor is the input's sqrt(mean(x^2)), non-zero wherever the input is defined
graph def_rms_norm_eps0_fused_kernel_a {
  X = input f16[8, 64]
  W = input f16[64, 32]
  Y = matmul(rms_norm(X), W)
  output Y
}
