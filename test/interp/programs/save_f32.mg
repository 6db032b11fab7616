# save(..., dtype=f32) keeps a kernel result in f32 in an f16 program:
# R = 1 + 2^-12 survives (rounded to f16 it would be 1), so D = R - 1 =
# 2^-12 = 0.000244140625, rounded to f16 only as D is stored (exactly).
# Without dtype=f32, E = 1 + 2^-12 is stored as 1 and F = E - 1 is 0.
# in Y: 1
# out D: 0.000244140625
# out F: 0
# tol: 0
graph save_f32 {
  Y = input f16[1, 1]
  R = kernel(Y) {
    y = tile(Y)
    save(accum(add(y, 0.000244140625)), R, dtype=f32)
  }
  E = kernel(Y) {
    y = tile(Y)
    save(accum(add(y, 0.000244140625)), E)
  }
  D = sub(R, 1)
  F = sub(E, 1)
  output D, F
}
