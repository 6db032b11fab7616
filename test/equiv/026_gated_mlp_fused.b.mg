# gated MLP with both matmuls in one kernel and the gate after the loop
graph gated_mlp_fused_b {
  X = input f16[4, 32]
  W1 = input f16[32, 16]
  W2 = input f16[32, 16]
  O = kernel(X, W1, W2) grid=[2] forloop=4 {
    x = tile(X, fmap=1)
    a = tile(W1, imap={x:1}, fmap=0)
    b = tile(W2, imap={x:1}, fmap=0)
    save(mul(silu(accum(matmul(x, a))), accum(matmul(x, b))), O, omap={x:1})
  }
  output O
}
