# (see the .a file)
graph layout_concat_through_elementwise_b {
  A = input f16[4, 16]
  B = input f16[4, 8]
  C = input f16[4, 24]
  D = input f16[4, 1]
  L = mul(add(A, slice(C, dim=1, start=0, end=16)), D)
  R = mul(add(B, slice(C, dim=1, start=16, end=24)), D)
  O = concat(L, R, dim=1)
  output O
}
