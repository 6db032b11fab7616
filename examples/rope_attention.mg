# Rotary position embedding (RoPE) on the query and the keys, then attention,
# for one decode step of 8 heads of 64 over 128 positions. RoPE is
# x*cos + rotate_half(x)*sin with rotate_half(x) = concat(-x2, x1), x1 and x2
# the halves of the head dim. The keys are stored transposed (Kt, head dim in
# the middle), so their halves are slices along dim 1 and the tables Ck, Sk
# hold one column per position.
graph rope_attention {
  Q = input f16[8, 1, 64]
  Kt = input f16[8, 64, 128]
  V = input f16[8, 128, 64]
  Cq = input f16[1, 1, 64]       # cos and sin of the query's position
  Sq = input f16[1, 1, 64]
  Ck = input f16[1, 64, 128]     # cos and sin of every key position
  Sk = input f16[1, 64, 128]
  Rq = concat(neg(slice(Q, dim=2, start=32, end=64)), slice(Q, dim=2, start=0, end=32), dim=2)
  Qr = add(mul(Q, Cq), mul(Rq, Sq))
  Rk = concat(neg(slice(Kt, dim=1, start=32, end=64)), slice(Kt, dim=1, start=0, end=32), dim=1)
  Kr = add(mul(Kt, Ck), mul(Rk, Sk))
  S = mul(matmul(Qr, Kr), 0.125)
  P = softmax(S, dim=-1)
  O = matmul(P, V)
  output O
}
