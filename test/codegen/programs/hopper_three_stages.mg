# A three-iteration loop: the Hopper path's pipeline has one stage per
# iteration (3). Tile a spans whole rows of A, so a stage of it is one
# contiguous run (a single bulk copy); tile b's rows are separate runs.
# expect-fast-path: cp.async double buffering
# expect-hopper-path: 3-stage mbarrier pipeline
graph hopper_three_stages {
  A = input f16[4, 48, 64]
  B = input f16[48, 128]
  S, T = kernel(A, B) grid=[4] forloop=3 {
    a = tile(A, imap={x:0}, fmap=1)
    b = tile(B, imap={x:1}, fmap=0)
    save(accum(reduce_sum(a, dim=1)), S, omap={x:0})
    save(accum(mul(b, 2)), T, omap={x:1})
  }
  output S, T
}
