# Outputs: names that exist, each once.
graph outputs {
  X = input f16[16, 64]
  Y = exp(X)
  output Y, Y
  output Z
  output exp(X)
}
# EXPECT: 5:13: error: 'Y' is already an output
# EXPECT: 6:10: error: use of undefined name 'Z'
# EXPECT: 7:10: error: output takes tensor names, not expressions: bind the expression to a name first
