# Unused bindings are allowed, with a warning.
graph unused {
  X = input f16[16, 64]
  U = input f16[16, 64]
  A = exp(X)
  N, D = kernel(X) grid=[16] {
    t = tile(X, imap={x:0})
    dead = exp(t)
    save(accum(t), N, omap={x:0})
    save(accum(relu(t)), D, omap={x:0})
  }
  output N
}
# EXPECT: 4:3: warning: input 'U' is never used
# EXPECT: 5:3: warning: tensor 'A' is never used
# EXPECT: 6:6: warning: kernel result 'D' is never used
# EXPECT: 8:5: warning: tensor 'dead' is never used
