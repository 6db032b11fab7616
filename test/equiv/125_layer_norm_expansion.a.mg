# expect: equivalent
# layer_norm is its definition (mg-language.md)
graph layer_norm_expansion_a {
  X = input f16[8, 16]
  O = layer_norm(X, dim=-1, eps=1e-5)
  output O
}
