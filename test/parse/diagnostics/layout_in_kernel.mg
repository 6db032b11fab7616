# reshape, concat and slice are program-level operators: not in a kernel body.
graph layout_in_kernel {
  X = input f16[16, 64]
  O = kernel(X) grid=[1] forloop=1 {
    x = tile(X)
    r = reshape(x, shape=[64, 16])
    c = concat(x, x, dim=0)
    s = slice(x, dim=1, start=0, end=8)
    save(accum(x), O)
  }
  output O
}
# EXPECT: 6:9: error: 'reshape' is a program-level operator and is not allowed inside a kernel body
# EXPECT: 7:9: error: 'concat' is a program-level operator and is not allowed inside a kernel body
# EXPECT: 8:9: error: 'slice' is a program-level operator and is not allowed inside a kernel body
