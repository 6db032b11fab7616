# mul distributes over add
graph mul_distributes_b {
  A = input f16[8, 8]
  B = input f16[8, 8]
  C = input f16[8, 8]
  O = add(mul(A, B), mul(A, C))
  output O
}
