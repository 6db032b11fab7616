# The online-softmax constructs: scan takes op=max and runs in the loop;
# rescale names a scan of the same body and applies to sums only; save's
# dtype is f32.
graph scan_rules {
  X = input f16[16, 64]
  A, B, C, G = kernel(X) grid=[16] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)
    m = scan(t, op=max)
    m2 = scan(t)
    m3 = scan(t, op=sum)
    a = accum(t, rescale=t)
    b = accum(t, op=max, rescale=m)
    c = accum(reduce_sum(t, dim=1), rescale=m)
    s = accum(t)
    late = scan(s, op=max)
    save(accum(t, rescale=m), A, omap={x:0})
    save(s, B, omap={x:0}, dtype=f16)
    save(s, C, omap={x:0}, dtype=f32)
    save(s, G, omap={x:0}, rescale=m)
  }
  Y = scan(X, op=max)
  output C
}
# EXPECT: 9:10: error: 'scan' needs a 'op=' argument
# EXPECT: 10:21: error: scan op is 'max' (the only kind of scan), found 'sum'
# EXPECT: 11:26: error: 'rescale' takes a scan(..., op=max) of this body, but 't' is not one
# EXPECT: 12:9: error: rescale applies to sums only (accum(x, op=max, rescale=m) is not allowed)
# EXPECT: 13:9: error: accum's rescale [1, 16] does not broadcast to the accumulated shape [1, 1]
# EXPECT: 15:12: error: scan takes a value computed in the for-loop, not one that already depends on an accum
# EXPECT: 17:34: error: save's dtype is f32 (the only dtype a result may have besides the program's), found 'f16'
# EXPECT: 19:28: error: 'save' has no argument 'rescale' (expected omap, dtype)
# EXPECT: 21:7: error: 'scan' is only allowed inside a kernel body
