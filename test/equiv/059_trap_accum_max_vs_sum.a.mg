# expect: not-equivalent
# accum(op=max) replaced by accum (a sum of partial maxima)
graph trap_accum_max_vs_sum_a {
  X = input f16[8, 64]
  O = reduce_max(X, dim=1)
  output O
}
