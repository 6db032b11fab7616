# Kernel headers: arguments are distinct names of tensors, attributes are
# grid (1 to 3 positive extents), forloop and block (1 to 1024), once each.
graph kernel_header {
  X = input f16[16, 64]
  A = kernel(X) grid=[4] forloop=2 grid=[4] {
    save(accum(tile(X, imap={x:0}, fmap=1)), A, omap={x:0})
  }
  B = kernel(X) grid=[2, 2, 2, 2] {
    save(accum(tile(X)), B)
  }
  C = kernel(X) grid=[0] forloop=0 block=2000 {
    save(accum(tile(X)), C)
  }
  D = kernel(X, X, Nope) {
    save(accum(tile(X)), D)
  }
  E = kernel(exp(X)) {
    save(accum(tile(X)), E)
  }
  F = kernel(X) threads=128 {
    save(accum(tile(X)), F)
  }
  G = kernel(X) grid=[4]
  H = exp(kernel(X))
  I, J = exp(X)
  output X
}
# EXPECT: 5:36: error: kernel attribute 'grid' is given twice
# EXPECT: 8:22: error: a grid has 1 to 3 dims (x, y, z), got 4
# EXPECT: 11:23: error: a grid extent must be a positive integer below 2^31, got 0
# EXPECT: 11:34: error: forloop must be a positive integer below 2^31, got 0
# EXPECT: 11:42: error: block must be at most 1024 threads, got 2000
# EXPECT: 14:17: error: 'X' is passed to the kernel twice
# EXPECT: 14:20: error: use of undefined name 'Nope'
# EXPECT: 17:14: error: kernel arguments are tensor names, not expressions: bind the expression to a name first
# EXPECT: 20:17: error: unknown kernel attribute 'threads' (expected grid, forloop or block)
# EXPECT: 24:3: error: expected '{' to open the kernel body, found 'H'
# EXPECT: 24:11: error: 'kernel' must be the whole right-hand side of a statement ('NAME = kernel ...')
# EXPECT: 25:10: error: only a kernel has several results; this expression has one, but 2 names are bound
