# expect: not-equivalent
# a near miss: the second half starts one element early (same shape, X[:, 31] twice)
graph layout_slice_off_by_one_a {
  X = input f16[8, 64]
  O = exp(X)
  output O
}
