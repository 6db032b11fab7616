# Input declarations: dtype, rank 1 to 4, extents, one dtype per program.
graph inputs {
  A = input f16[16, 64]
  B = input f64[16]
  C = input f16[]
  D = input f16[1, 2, 3, 4, 5]
  E = input f16[0, 4]
  F = input f16[2147483648]
  G = input f16[2.5]
  H = input f32[4]
  I = input f16[1048576, 1048576, 2]
  J, K = input f16[4]
  L = input f16[99999999999999999999]
  output A
}
# EXPECT: 4:13: error: unknown dtype 'f64' (expected f16, bf16 or f32)
# EXPECT: 5:16: error: an input has rank 1 to 4, got rank 0
# EXPECT: 6:16: error: an input has rank 1 to 4, got rank 5
# EXPECT: 7:17: error: an extent must be a positive integer below 2^31, got 0
# EXPECT: 8:17: error: an extent must be a positive integer below 2^31, got 2147483648
# EXPECT: 9:17: error: an extent must be an integer, found number '2.5'
# EXPECT: 10:13: error: input 'H' is f32 but the program's tensors are f16 (set by the input at 3:13); all tensors of a program share one dtype
# EXPECT: 11:16: error: tensor [1048576, 1048576, 2] holds more than 2^40 elements
# EXPECT: 12:6: error: 'input' declares one tensor; bind it to one name
# EXPECT: 13:17: error: integer '99999999999999999999' is too large
