# the multiplication runs on a [4, 2, 32] view of X (see the .a file)
graph layout_reshape_round_trip_b {
  X = input f16[8, 64]
  O = reshape(mul(reshape(X, shape=[4, -1, 32]), 2), shape=[8, 64])
  output O
}
