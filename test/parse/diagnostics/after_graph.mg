# Nothing may follow the graph's closing brace.
graph after {
  X = input f16[16, 64]
  output X
}
output X
# EXPECT: 6:1: error: unexpected 'output' after the end of graph 'after'
