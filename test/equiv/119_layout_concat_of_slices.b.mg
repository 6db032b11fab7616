# exp of each part, then the parts joined (see the .a file)
graph layout_concat_of_slices_b {
  X = input f16[8, 64]
  L = slice(X, dim=1, start=0, end=24)
  R = slice(X, dim=-1, start=24, end=64)
  O = concat(exp(L), exp(R), dim=1)
  output O
}
