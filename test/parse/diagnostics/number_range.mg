# Literals are read exactly by the verifier and as f32 inside kernel bodies:
# one that is not zero but underflows to 0 in f32, or that exceeds f32's
# range, is rejected (issue 10).
graph number_range {
  X = input f16[16, 64]
  A = mul(X, 1e-99999999999999)
  B = add(X, -1e-46)
  C = mul(X, 1e39)
  D = add(X, 1e-40)
  E = mul(X, 0e-99999)
  F = add(add(add(D, E), 0.000), 3e38)
  output F
}
# EXPECT: 6:14: error: number '1e-99999999999999' underflows to 0 in f32 (write 0 if zero is meant)
# EXPECT: 7:14: error: number '-1e-46' underflows to 0 in f32 (write 0 if zero is meant)
# EXPECT: 8:14: error: number '1e39' is out of range
