# A name is bound once.
graph duplicate {
  X = input f16[16, 64]
  X = input f16[16, 64]
  A = exp(X)
  A = relu(X)
  N, N = kernel(X) grid=[16] {
    t = tile(X, imap={x:0})
    save(accum(t), N, omap={x:0})
  }
  output A
}
# EXPECT: 4:3: error: 'X' is already bound at 3:3
# EXPECT: 6:3: error: 'A' is already bound at 5:3
# EXPECT: 7:6: error: 'N' is named twice
