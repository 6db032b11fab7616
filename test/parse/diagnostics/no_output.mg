# A program has at least one output.
graph no_output {
  X = input f16[16, 64]
}
# EXPECT: 2:1: error: graph 'no_output' has no output (expected 'output NAME')
