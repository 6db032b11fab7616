# a kernel body that multiplies and divides by relu(y) (see the .a file)
graph def_kernel_relu_divisor_cancels_b {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = kernel(X, Y) grid=[2, 2] forloop=2 {
    x = tile(X, imap={x:0, y:1})
    y = tile(Y, imap={x:0, y:1})
    r = relu(y)
    save(accum(div(mul(x, r), r)), O, omap={x:0, y:1})
  }
  output O
}
