# expect: unprovable
# max(x, x) = x: maxima are hashed as multisets, so duplicates count
graph unprovable_max_idempotent_a {
  X = input f16[8, 1]
  O = reduce_max(X, dim=1)
  output O
}
