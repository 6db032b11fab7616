# expect: error
# different numbers of outputs
graph error_output_count_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = add(A, B)
  output O
}
