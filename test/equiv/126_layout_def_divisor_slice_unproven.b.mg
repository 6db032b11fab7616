# divides by the other half too, times zero (see the .a file)
graph layout_def_divisor_slice_unproven_b {
  X = input f16[4, 8]
  Y = input f16[4, 16]
  O = add(div(X, slice(Y, dim=1, start=0, end=8)), div(mul(slice(Y, dim=1, start=8, end=16), 0), slice(Y, dim=1, start=8, end=16)))
  output O
}
