# tile, accum and save belong to kernel bodies.
graph block_ops {
  X = input f16[16, 64]
  A = tile(X)
  B = accum(X)
  save(X, X)
  C = exp(save(X, X))
  exp(X)
  output X
}
# EXPECT: 4:7: error: 'tile' is only allowed inside a kernel body
# EXPECT: 5:7: error: 'accum' is only allowed inside a kernel body
# EXPECT: 6:3: error: 'save' is only allowed inside a kernel body
# EXPECT: 7:11: error: 'save' is a statement of its own and has no value
# EXPECT: 8:3: error: the result of 'exp(...)' must be bound to a name: expected 'NAME = exp(...)'
