# Kernel-body semantics, one kernel per rule, on values worked out by hand.
# A = [[0 1] [2 3] [4 5] [6 7]]
# B = [[5 1 2 8 3 0] [-1 -2 -3 -4 -5 -6]]
# C = 0 .. 47 as [2, 4, 6]
# in A: 0 1 2 3 4 5 6 7
# in B: 5 1 2 8 3 0 -1 -2 -3 -4 -5 -6
# in C: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
#
# R: imap {x:0} gives block i rows 2i..2i+1; omap {x:1} puts them at columns 2i..2i+1.
# out R: 0 1 4 5 2 3 6 7
# P: y is not in the imap, so the 3 blocks along y see the same rows (replication).
# out P: 0 1 0 1 0 1 2 3 2 3 2 3 4 5 4 5 4 5 6 7 6 7 6 7
# F: fmap=1 with forloop=3: iteration i sees columns 2i..2i+1; accum sums them.
# out F: 10 9 -9 -12
# M: the same with accum op=max.
# out M: 5 8 -1 -2
# E: a tile without fmap is the same every iteration: 4 iterations give 4·A.
# out E: 0 4 8 12 16 20 24 28
# L: block i has row i; per iteration s += t², m = max t; after the loop, once:
#   y = s / m · 2 and its row sum. Row 0: s = [38 65], m = [5 8], sum = 15.2 + 16.25.
#   Row 1: s = [35 56], m = [-1 -2], sum = -70 - 56.
# out L: 31.45 -126
# N: reduce_sum size=2 inside the body, then rms_norm after the loop:
#   row 0: [10 9] / sqrt(90.5), row 1: [-9 -12] / sqrt(112.5).
# out N: 1.0511766624552734 0.9460589962097461 -0.848528137423857 -1.131370849898476
# G: three grid dims, imap {x:0, y:1, z:2} and the permuted omap {x:2, y:0, z:1}:
#   block (bx, by, bz) sees C[bx, 2by.., 2bz..] ([1, 2, 2]) and writes it at
#   G[by, 2bz.., 2bx..] of G[2, 6, 4].
# out G: 0 1 24 25 6 7 30 31 2 3 26 27 8 9 32 33 4 5 28 29 10 11 34 35 12 13 36 37 18 19 42 43 14 15 38 39 20 21 44 45 16 17 40 41 22 23 46 47
# H: fmap on the dim imap splits: block i sees A's rows 2i, 2i+1, one per iteration.
# out H: 2 4 10 12
# tol: 1e-6
graph kernels {
  A = input f32[4, 2]
  B = input f32[2, 6]
  C = input f32[2, 4, 6]
  R = kernel(A) grid=[2] {
    t = tile(A, imap={x:0})
    save(accum(t), R, omap={x:1})
  }
  P = kernel(A) grid=[2, 3] {
    t = tile(A, imap={x:0})
    save(accum(t), P, omap={x:0, y:1})
  }
  F = kernel(B) forloop=3 {
    t = tile(B, fmap=1)
    save(accum(t), F)
  }
  M = kernel(B) forloop=3 {
    t = tile(B, fmap=-1)
    save(accum(t, op=max), M)
  }
  E = kernel(A) forloop=4 {
    t = tile(A)
    save(accum(t), E)
  }
  L = kernel(B) grid=[2] forloop=3 {
    t = tile(B, imap={x:0}, fmap=1)
    s = accum(square(t))
    m = accum(t, op=max)
    y = mul(div(s, m), 2)
    save(reduce_sum(y, dim=1), L, omap={x:0})
  }
  N = kernel(B) grid=[2] {
    t = tile(B, imap={x:-2})
    n = accum(reduce_sum(t, dim=1, size=2))
    save(rms_norm(n), N, omap={x:0})
  }
  G = kernel(C) grid=[2, 2, 3] {
    t = tile(C, imap={x:0, y:1, z:2})
    save(accum(t), G, omap={x:2, y:0, z:1})
  }
  H = kernel(A) grid=[2] forloop=2 {
    t = tile(A, imap={x:0}, fmap=0)
    save(accum(t), H, omap={x:0})
  }
  output R, P, F, M, E, L, N, G, H
}
