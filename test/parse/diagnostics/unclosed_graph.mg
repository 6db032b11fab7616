# The graph's closing brace is missing.
graph unclosed {
  X = input f16[16, 64]
  output X
# EXPECT: 4:11: error: expected '}' to close graph 'unclosed', found end of file
