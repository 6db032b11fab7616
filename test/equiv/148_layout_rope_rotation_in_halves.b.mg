# (see the .a file)
graph layout_rope_rotation_in_halves_b {
  X = input f16[8, 1, 64]
  C = input f16[1, 1, 64]
  S = input f16[1, 1, 64]
  X1 = slice(X, dim=2, start=0, end=32)
  X2 = slice(X, dim=2, start=32, end=64)
  H1 = sub(mul(X1, slice(C, dim=2, start=0, end=32)), mul(X2, slice(S, dim=2, start=0, end=32)))
  H2 = add(mul(X2, slice(C, dim=2, start=32, end=64)), mul(X1, slice(S, dim=2, start=32, end=64)))
  O = concat(H1, H2, dim=2)
  output O
}
