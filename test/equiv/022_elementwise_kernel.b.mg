# an element-wise op tiled over a 2-D grid
graph elementwise_kernel_b {
  X = input f16[8, 16]
  O = kernel(X) grid=[2, 4] forloop=1 {
    t = tile(X, imap={x:0, y:1})
    save(accum(silu(t)), O, omap={x:0, y:1})
  }
  output O
}
