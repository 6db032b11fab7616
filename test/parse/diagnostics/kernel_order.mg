# Inside a kernel body, too, a name is bound before it is used.
graph kernel_order {
  X = input f16[16, 64]
  Y = kernel(X) {
    a = exp(b)
    b = tile(X)
    c = exp(c)
    save(accum(b), Y)
  }
  output Y
}
# EXPECT: 5:13: error: 'b' is used before it is bound (at 6:5)
# EXPECT: 7:13: error: 'c' is used in its own definition
