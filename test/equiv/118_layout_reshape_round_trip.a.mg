# expect: equivalent
# reshape only renames indices: splitting a dim and merging it back is the identity
graph layout_reshape_round_trip_a {
  X = input f16[8, 64]
  O = mul(X, 2)
  output O
}
