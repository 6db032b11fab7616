# Layout ops whose operand is a kernel result saved with dtype=f32: a
# reshape of it cannot be a view (the result is in the program's dtype), so
# it is a copy kernel that rounds, and a concat rounds its f32 operand too.
graph layout_f32_operands {
  X = input bf16[4, 16]
  M = kernel(X) grid=[4] {
    x = tile(X, imap={x:0})
    save(accum(mul(x, 1.01)), M, omap={x:0}, dtype=f32)
  }
  R = reshape(M, shape=[8, 8])
  C = concat(M, X, dim=0)
  S = slice(M, dim=1, start=3, end=11)
  output R, C, S
}
