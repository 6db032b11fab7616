# Online softmax constructs: scan(t, op=max) is the running maximum and
# accum(x, rescale=m) rescales what it holds by exp(m_prev - m) before each
# add, so S = sum_i exp(x_i - M) for M = max_i x_i, with no exponent above 0.
# Row 0 walks 0 1 0.5 2 (the maximum grows twice), row 1 walks 3 -1 2 0
# (it never grows after the first step).
# SUM = e^-2 + e^-1 + e^-1.5 + 1 and e^0 + e^-4 + e^-1 + e^-3.
# in X: 0 1 0.5 2 3 -1 2 0
# out SUM: 1.7263449 1.4359821
# out MAX: 2 3
# tol: 1e-6
graph scan_rescale {
  X = input f32[2, 4]
  SUM, MAX = kernel(X) grid=[2] forloop=4 {
    t = tile(X, imap={x:0}, fmap=1)          # [1, 1]: one element per step
    m = scan(t, op=max)
    s = accum(exp(sub(t, m)), rescale=m)
    save(s, SUM, omap={x:0})
    save(accum(t, op=max), MAX, omap={x:0})
  }
  output SUM, MAX
}
