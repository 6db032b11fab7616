# expect: equivalent
# mul distributes over add
graph mul_distributes_a {
  A = input f16[8, 8]
  B = input f16[8, 8]
  C = input f16[8, 8]
  O = mul(A, add(B, C))
  output O
}
