# expect: not-equivalent
# blocks saved to transposed positions (omap swapped)
graph trap_wrong_omap_a {
  X = input f16[8, 8]
  O = relu(X)
  output O
}
