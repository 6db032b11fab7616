# a batched matmul with a broadcast operand
graph broadcast_batch_matmul_b {
  A = input f16[2, 4, 8]
  B = input f16[8, 4]
  O = kernel(A, B) grid=[2] {
    a = tile(A, imap={x:0})
    b = tile(B)
    save(accum(matmul(a, b)), O, omap={x:0})
  }
  output O
}
