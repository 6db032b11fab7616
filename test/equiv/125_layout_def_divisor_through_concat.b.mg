# (see the .a file)
graph layout_def_divisor_through_concat_b {
  X = input f16[4, 16]
  Y = input f16[4, 8]
  Z = input f16[4, 8]
  O = concat(div(slice(X, dim=1, start=0, end=8), Y), div(slice(X, dim=1, start=8, end=16), Z), dim=1)
  output O
}
