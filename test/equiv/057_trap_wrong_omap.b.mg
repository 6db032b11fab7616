# blocks saved to transposed positions (omap swapped)
graph trap_wrong_omap_b {
  X = input f16[8, 8]
  O = kernel(X) grid=[2, 2] {
    t = tile(X, imap={x:0, y:1})
    save(accum(relu(t)), O, omap={x:1, y:0})
  }
  output O
}
