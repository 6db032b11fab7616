# silu(x) = x / (1 + exp(-x)) holds for reals, but silu is a random function here
graph unprovable_silu_sigmoid_b {
  X = input f16[8, 16]
  O = div(X, add(exp(mul(X, -1)), 1))
  output O
}
