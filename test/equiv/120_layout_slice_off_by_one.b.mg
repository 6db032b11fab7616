# the second slice is [31, 63) instead of [32, 64) (see the .a file)
graph layout_slice_off_by_one_b {
  X = input f16[8, 64]
  O = exp(concat(slice(X, dim=1, start=0, end=32), slice(X, dim=1, start=31, end=63), dim=1))
  output O
}
