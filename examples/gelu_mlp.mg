# The GPT-2-style MLP: gelu_tanh(X·W1)·W2, the tanh approximation of GELU
# (issue 11: its 0.044715·h³ term needs the program's numbers inside a body).
graph gelu_mlp {
  X = input f16[16, 1024]
  W1 = input f16[1024, 4096]
  W2 = input f16[4096, 1024]
  H = matmul(X, W1)
  G = gelu_tanh(H)
  O = matmul(G, W2)
  output O
}
