# A kernel result saved with dtype=f32 cannot be an output of the program
# (outputs have the program's dtype); it may feed later operators.
graph output_f32 {
  X = input f16[16, 64]
  R = kernel(X) grid=[16] {
    t = tile(X, imap={x:0})
    save(accum(t), R, omap={x:0}, dtype=f32)
  }
  S = mul(R, 2)
  output S, R
}
# EXPECT: 10:13: error: 'R' is saved with dtype=f32, which is allowed only for a kernel result that is not an output of the program
