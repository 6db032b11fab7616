# expect: not-equivalent
# the exponent is taken against the tile's own maximum, not the running one,
# while the accumulators are rescaled by the running maximum
graph trap_online_exponent_own_tile_max_a {
  Q = input f16[2, 16, 8]
  K = input f16[2, 8, 64]
  V = input f16[2, 64, 8]
  S = mul(matmul(Q, K), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
}
