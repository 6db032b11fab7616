# rotate_half(rotate_half(X)) (see the .a file)
graph layout_rotate_half_twice_b {
  X = input f16[4, 64]
  R = concat(mul(slice(X, dim=1, start=32, end=64), -1), slice(X, dim=1, start=0, end=32), dim=1)
  O = concat(mul(slice(R, dim=1, start=32, end=64), -1), slice(R, dim=1, start=0, end=32), dim=1)
  output O
}
