# softmax and rms_norm mean their expansions.
# S = [[0 ln3] [0 0]]: softmax over the last dim gives rows [1/4 3/4] and
# [1/2 1/2]; over dim 0 the columns [1/2 1/2] and [3/4 1/4]. rms_norm([3, 4]) = [3, 4] / sqrt(12.5); with
# eps = 11.5 the divisor is sqrt(24).
# in S: 0 1.0986122886681098 0 0
# in X: 3 4
# out P: 0.25 0.75 0.5 0.5
# out P0: 0.5 0.75 0.5 0.25
# out N: 0.848528137423857 1.131370849898476
# out NE: 0.6123724356957946 0.8164965809277261
# tol: 1e-6
graph shorthands {
  S = input f32[2, 2]
  X = input f32[1, 2]
  P = softmax(S)
  P0 = softmax(S, dim=0)
  N = rms_norm(X)
  NE = rms_norm(X, dim=-1, eps=11.5)
  output P, P0, N, NE
}
