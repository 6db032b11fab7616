# second half first (see the .a file)
graph layout_concat_other_order_b {
  X = input f16[8, 64]
  O = exp(concat(slice(X, dim=1, start=32, end=64), slice(X, dim=1, start=0, end=32), dim=1))
  output O
}
