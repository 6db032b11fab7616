# expect: equivalent
# gelu_tanh is its definition (mg-language.md)
graph gelu_tanh_expansion_a {
  X = input f16[8, 16]
  O = gelu_tanh(X)
  output O
}
