# bf16 tensor cores, a batched matmul whose A operand broadcasts over the
# batch, and an after-loop matmul on accumulated f32 tiles (simple path).
# expect-fast-path: mma.sync
graph matmul_bf16 {
  A = input bf16[1, 32, 64]
  B = input bf16[3, 64, 16]
  C = input bf16[16, 16]
  Y = kernel(A, B, C) grid=[1, 2] forloop=4 {
    a = tile(A, imap={y:1}, fmap=2)
    b = tile(B, fmap=1)
    c = accum(tile(C), op=max)      # the same tile every step: its max is itself
    s = accum(matmul(a, b))
    save(matmul(s, c), Y, omap={y:1})
  }
  output Y
}
