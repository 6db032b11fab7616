# expect: equivalent
# the two halves of a row, concatenated in order, are the row
graph layout_concat_of_slices_a {
  X = input f16[8, 64]
  O = exp(X)
  output O
}
