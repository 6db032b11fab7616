# examples/ntrans.mg at reduced shapes.
graph ntrans {
  H = input f16[8, 512]
  X = input f16[8, 512]
  alpha = input f16[8, 512]
  O = rms_norm(add(X, mul(alpha, sub(rms_norm(H), X))))
  output O
}
