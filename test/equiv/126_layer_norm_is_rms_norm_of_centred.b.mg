# layer_norm(x) = rms_norm(x - mean(x)); eps=0 adds nothing
graph layer_norm_is_rms_norm_of_centred_b {
  X = input f16[8, 16]
  O = rms_norm(sub(X, reduce_mean(X, dim=-1)), eps=0)
  output O
}
