# expect: not-equivalent
# a near miss of 148: rotate_half's minus on the wrong half (the rotation by
# the opposite angle)
graph layout_rope_rotation_sign_flipped_a {
  X = input f16[8, 1, 64]
  C = input f16[1, 1, 64]
  S = input f16[1, 1, 64]
  R = concat(neg(slice(X, dim=2, start=32, end=64)), slice(X, dim=2, start=0, end=32), dim=2)
  O = add(mul(X, C), mul(R, S))
  output O
}
