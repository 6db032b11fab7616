# expect: not-proven
# the candidate divides by relu(y), which is zero wherever y <= 0
graph def_relu_cancels_in_candidate_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = X
  output O
}
