# different numbers of outputs
graph error_output_count_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(A, B)
  P = mul(A, B)
  output O, P
}
