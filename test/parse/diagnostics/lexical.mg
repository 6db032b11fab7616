# Characters and numbers the lexer does not accept.
graph lexical {
  X = input f16[16, 64]
  Y = mul(X, $)
  Z = mul(X, 12abc)
  W = sub(X, - 1)
  V = mul(X, 1.)
  output X
}
# EXPECT: 4:14: error: unexpected character '$'
# EXPECT: 5:14: error: malformed number '12abc'
# EXPECT: 6:14: error: expected a digit after '-' (only numbers may be negative)
# EXPECT: 7:14: error: malformed number '1.'
