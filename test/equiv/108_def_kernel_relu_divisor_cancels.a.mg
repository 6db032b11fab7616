# expect: not-proven
# a kernel body that multiplies and divides by relu(y), twice (forloop=2, the
# same tile): undefined where y <= 0
graph def_kernel_relu_divisor_cancels_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = mul(X, 2)
  output O
}
