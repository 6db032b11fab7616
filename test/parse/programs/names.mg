# Names that look like the printer's fresh names, aliases, an input as an
# output, and the same local name in two kernel bodies.
graph names {
  t0 = input f16[8, 8]
  t2 = exp(relu(t0))
  alias = t2
  t1 = add(alias, square(t0))
  A = kernel(t1) {
    x = tile(t1)
    save(accum(exp(x)), A)
  }
  B = kernel(A) {
    x = tile(A)
    save(accum(relu(x)), B)
  }
  output B, t0
  output t2
}
