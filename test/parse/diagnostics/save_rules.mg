# save: names a result of its kernel, each result exactly once, and the omap
# gives every grid dim of extent > 1 a distinct dim.
graph save_rules {
  X = input f16[16, 64]
  A, B, C = kernel(X) grid=[4, 2] {
    t = accum(tile(X, imap={x:0, y:1}))
    save(t, A, omap={x:0, y:1})
    save(t, A, omap={x:0, y:1})
    save(t, X, omap={x:0, y:1})
    save(t, exp(t), omap={x:0, y:1})
    save(t, B, omap={x:0})
    save(t, C, omap={x:1, y:1})
    save(t, C, omap={x:0, y:2})
  }
  D = kernel(X) grid=[4] {
    u = accum(tile(X, imap={x:0}))
  }
  output A
}
# EXPECT: 8:5: error: kernel result 'A' is already written by the save at 7:5
# EXPECT: 9:13: error: 'X' is not a result of this kernel (its results are A, B, C)
# EXPECT: 10:13: error: save names the kernel result it writes, found an expression
# EXPECT: 11:5: error: grid dim y has 2 blocks but omap does not map it, so blocks would write the same elements
# EXPECT: 12:5: error: omap maps grid dims x and y to the same dim 1
# EXPECT: 13:5: error: kernel result 'C' is already written by the save at 12:5
# EXPECT: 15:3: error: kernel result 'D' is not written by any save
