# expect: equivalent
# RoPE's rotation x·cos + rotate_half(x)·sin written in halves, with the sign
# rules of layout_rewrite.h (mul(neg(a), b) = neg(mul(a, b)),
# add(x, neg(y)) = sub(x, y)): the halves are x1·c1 - x2·s1 and x2·c2 + x1·s2
graph layout_rope_rotation_in_halves_a {
  X = input f16[8, 1, 64]
  C = input f16[1, 1, 64]
  S = input f16[1, 1, 64]
  R = concat(neg(slice(X, dim=2, start=32, end=64)), slice(X, dim=2, start=0, end=32), dim=2)
  O = add(mul(X, C), mul(R, S))
  output O
}
