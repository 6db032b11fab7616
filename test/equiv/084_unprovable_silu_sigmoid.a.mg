# expect: unprovable
# silu(x) = x / (1 + exp(-x)) holds for reals, but silu is a random function here
graph unprovable_silu_sigmoid_a {
  X = input f16[8, 16]
  O = silu(X)
  output O
}
