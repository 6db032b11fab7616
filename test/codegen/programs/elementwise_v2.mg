# The version 2 element-wise operators (maximum, minimum, neg, abs, tanh,
# sigmoid, log) at program level and fused in a kernel body, with numbers
# as operands and NumPy broadcasting; the NaN of log of a negative value
# propagates through maximum and minimum as in the interpreter.
graph elementwise_v2 {
  A = input f16[4, 24, 40]
  B = input f16[24, 1]
  s = maximum(A, B)
  n = minimum(neg(s), 0.5)
  a = abs(n)
  t = tanh(sub(a, B))
  g = sigmoid(t)
  l = log(g)
  m = maximum(log(A), l)
  Z = kernel(A, B) grid=[4] {
    x = tile(A, imap={x:0})
    b = tile(B)
    c = minimum(maximum(x, b), 1.5)
    d = mul(tanh(c), sigmoid(neg(c)))
    save(accum(add(log(add(abs(d), 1)), maximum(0, x))), Z, omap={x:0})
  }
  output m, Z
}
