# Stored tensors are rounded to f16; tiles inside a kernel body stay f32.
# A = [1, 2048, 0.5]. At program level 1 + 0.0001 rounds back to 1 (and
# 0.5 + 0.0001 to 0.5), so C = (A + 0.0001 + 1) - A - 1 is 0 there; 2048 + 1
# rounds to 2048 (a tie, to even), so C is -1 there.
# Inside the kernel (1 + 0.0001) - 1 is 1678·2^-24 = 1.0001659393310547e-4 in
# f32, exact in f16 as well, and so is (0.5 + 0.0001) - 0.5; for 2048 the f32
# sum already rounds back. The input Z = 0.1 is rounded to f16 on entry.
# in A: 1 2048 0.5
# in Z: 0.1
# out C: 0 -1 0
# out K: 1.0001659393310547e-4 0 1.0001659393310547e-4
# out A1: 2 2048 1.5
# out Z1: 0.0999755859375
# tol: 0
graph f16_rounding {
  A = input f16[3]
  Z = input f16[1]
  B = add(add(A, 0.0001), 1)
  C = sub(sub(B, A), 1)
  K = kernel(A) {
    a = tile(A)
    save(accum(sub(add(a, 0.0001), a)), K)
  }
  A1 = add(A, 1)
  Z1 = mul(Z, 1)
  output C, K, A1, Z1
}
