# The file ends inside a call: both the call and the graph are unclosed.
graph truncated {
  X = input f16[16, 64]
  Y = reduce_sum(X, dim=
# EXPECT: 4:25: error: expected a value for 'dim', found end of file
# EXPECT: 4:25: error: expected '}' to close graph 'truncated', found end of file
