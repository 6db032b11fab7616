# A kernel argument is used only through tile().
graph kernel_args {
  X = input f16[16, 64]
  W = input f16[64, 32]
  Y = kernel(X, W) {
    w = tile(W)
    m = matmul(X, w)
    save(accum(m), Y)
  }
  output Y
}
# EXPECT: 7:9: error: kernel argument 'X' can only be used through tile()
