# a maximum split across blocks along the wrong dim
graph trap_max_split_wrong_dim_b {
  X = input f16[8, 8]
  Pm = kernel(X) grid=[4] {
    t = tile(X, imap={x:0})
    save(accum(reduce_max(t, dim=1)), Pm, omap={x:1})
  }
  O = transpose(reduce_max(Pm, dim=0), dim0=0, dim1=1)
  output O
}
