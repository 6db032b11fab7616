# layer_norm is its definition (mg-language.md)
graph layer_norm_expansion_b {
  X = input f16[8, 16]
  C = sub(X, reduce_mean(X, dim=1))
  O = div(C, sqrt(add(reduce_mean(square(C), dim=1), 1e-5)))
  output O
}
