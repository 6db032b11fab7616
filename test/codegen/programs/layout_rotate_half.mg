# RoPE's rotate_half in bf16 and a concat along the last dim feeding a
# kernel-lowered element-wise chain; a concat whose operands are a slice and
# a computed tensor.
graph layout_rotate_half {
  X = input bf16[2, 4, 16]
  C = input bf16[2, 4, 16]
  S = input bf16[2, 4, 16]
  A = slice(X, dim=2, start=0, end=8)
  B = slice(X, dim=2, start=8, end=16)
  H = concat(mul(B, -1), A, dim=-1)
  O = add(mul(X, C), mul(H, S))
  output O
}
