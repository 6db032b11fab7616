# LayerNorm followed by a linear layer: the rms_norm_linear benchmark with
# the mean subtracted first (layer_norm(X) = rms_norm(X - reduce_mean(X))).
graph layernorm_linear {
  X = input f16[16, 4096]
  W = input f16[4096, 6144]
  Y = matmul(layer_norm(X, eps=1e-5), W)
  output Y
}
