# expect: equivalent
# layer_norm(x) = rms_norm(x - mean(x)); eps=0 adds nothing
graph layer_norm_is_rms_norm_of_centred_a {
  X = input f16[8, 16]
  O = layer_norm(X)
  output O
}
