# the same input used twice instead of two inputs of equal shape
graph trap_same_input_twice_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  O = matmul(A, A)
  output O
}
