# One normalized-Transformer (nGPT) hidden-state update:
# O = rms_norm(X + alpha * (rms_norm(H) - X)).
graph ntrans {
  H = input f16[8, 4096]
  X = input f16[8, 4096]
  alpha = input f16[8, 4096]
  O = rms_norm(add(X, mul(alpha, sub(rms_norm(H), X))))
  output O
}
