# Every pre-defined operator once, with broadcasting, negative dims and
# numbers in every spelling.
graph all_operators {
  A = input bf16[2, 8, 16]
  B = input bf16[16, 4]
  C = input bf16[8, 1]
  D = input bf16[4]
  M = matmul(A, B)                       # batch dims broadcast: [2, 8, 4]
  S = add(M, D)                          # [2, 8, 4] + [4]
  T = sub(S, C)                          # [2, 8, 4] - [8, 1]
  U = mul(T, -0.5)
  V = div(2, add(square(U), 1e-6))
  E = exp(V)
  R = mul(sqrt(E), rsqrt(add(E, 1)))
  G = add(silu(R), gelu(relu(R)))
  H = reduce_sum(G, dim=-1)
  I = reduce_mean(G, dim=0)
  J = reduce_max(G, dim=1)
  K = reduce_sum(A, dim=2, size=4)
  L = transpose(K, dim0=-1, dim1=0)
  N = rms_norm(G, dim=1, eps=1E-5)
  O = softmax(N)
  P = maximum(minimum(G, 6), neg(abs(M)))  # version 2 element-wise operators
  Q = add(tanh(P), sigmoid(P))
  W = log(add(exp(Q), 1))
  X = maximum(0, layer_norm(W, dim=-1, eps=1e-5))
  Y = gelu_tanh(X)
  output H, I, J, L, O, Y
}
