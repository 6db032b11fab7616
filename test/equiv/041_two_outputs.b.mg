# two outputs in the same order
graph two_outputs_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  D = sub(A, B)
  S = add(B, A)
  output S, D
}
