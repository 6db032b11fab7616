# gelu_tanh is its definition (mg-language.md)
graph gelu_tanh_expansion_b {
  X = input f16[8, 16]
  O = mul(mul(X, 0.5), add(1, tanh(mul(add(X, mul(mul(square(X), X), 0.044715)), 0.7978845608028654))))
  output O
}
