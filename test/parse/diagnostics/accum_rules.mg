# The accum rule: operations run in the for-loop or after it, never mixed;
# accum takes a loop value, save an after-loop one.
graph accum_rules {
  X = input f16[16, 64]
  A, B, C, D = kernel(X) grid=[16] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)
    s = accum(t)
    m = add(s, t)
    twice = accum(s)
    save(t, A, omap={x:0})
    save(accum(t, op=min), B, omap={x:0})
    save(accum(t, op=max), C, omap={x:0})
    save(div(s, 4), D, omap={x:0})
  }
  output A
}
# EXPECT: 8:9: error: 'add' mixes a value computed in the for-loop with one computed after it (after an accum)
# EXPECT: 9:13: error: accum takes a value computed in the for-loop, not one that already depends on an accum
# EXPECT: 10:5: error: save takes a value that depends on an accum
# EXPECT: 11:22: error: accum op is 'sum' or 'max', found 'min'
