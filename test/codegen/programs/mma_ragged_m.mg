# Tensor-core matmuls whose m is not a multiple of 16 (decode shapes): the
# fragment rows past m are zero and not stored. 20 rows in one kernel; 8 rows
# (from the program-level lowering) in the other.
# expect-fast-path: mma.sync
graph mma_ragged_m {
  A = input f16[20, 64]
  B = input f16[64, 32]
  X = input f16[8, 128]
  W = input f16[128, 64]
  C = kernel(A, B) grid=[2] forloop=2 {
    a = tile(A, fmap=1)
    b = tile(B, imap={x:1}, fmap=0)
    save(accum(matmul(a, b)), C, omap={x:1})
  }
  Y = matmul(X, W)
  output C, Y
}
