# Element-wise unary operators in f32 (values from Python's math module).
# in A: -2 0 1 4
# in B: 0.25 4 16
# out E: 0.1353352832366127 1 2.718281828459045 54.598150033144236
# out S: 4 0 1 16
# out R: 0 0 1 4
# out SL: -0.2384058440442351 0 0.7310585786300049 3.928055160151634
# out G: -0.04550026389635842 0 0.8413447460685429 3.9998733150326675
# out Q: 0.5 2 4
# out RQ: 2 0.5 0.25
# tol: 1e-6
graph unary {
  A = input f32[4]
  B = input f32[3]
  E = exp(A)
  S = square(A)
  R = relu(A)
  SL = silu(A)
  G = gelu(A)
  Q = sqrt(B)
  RQ = rsqrt(B)
  output E, S, R, SL, G, Q, RQ
}
