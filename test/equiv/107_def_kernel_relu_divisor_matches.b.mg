# a kernel body dividing by relu of a tile (see the .a file)
graph def_kernel_relu_divisor_matches_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = kernel(X, Y) grid=[2, 2] {
    x = tile(X, imap={x:0, y:1})
    y = tile(Y, imap={x:0, y:1})
    save(accum(div(x, relu(y))), O, omap={x:0, y:1})
  }
  output O
}
