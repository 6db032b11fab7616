# expect: equivalent
# accum(op=max) over for-loop iterations equals the maximum of the whole
graph max_split_across_iterations_a {
  X = input f16[8, 64]
  O = reduce_max(X, dim=1)
  output O
}
