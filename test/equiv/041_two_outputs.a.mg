# expect: equivalent
# two outputs in the same order
graph two_outputs_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  S = add(A, B)
  D = sub(A, B)
  output S, D
}
