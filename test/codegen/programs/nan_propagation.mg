# NaN (sqrt of negative inputs) propagates through relu, reduce_max (short,
# warp-shuffle and accumulated over the loop) and accum max, as in the
# interpreter (NumPy semantics; fmaxf would drop it).
graph nan_propagation {
  X = input f32[8, 256]
  Y = reduce_max(relu(sqrt(X)), dim=1)
  Z = kernel(X) grid=[8] forloop=2 {
    x = tile(X, imap={x:0}, fmap=1)
    s = sqrt(x)
    m = accum(reduce_max(s, dim=1), op=max)
    a = accum(s, op=max)
    save(add(a, m), Z, omap={x:0})
  }
  output Y, Z
}
