# Keywords and operator names cannot name tensors, at either level.
graph reserved {
  X = input f16[16, 64]
  exp = relu(X)
  tile = relu(X)
  rms_norm = relu(X)
  kernel = relu(X)
  softmax, B = kernel(X) {
    save = tile(X)
    save(accum(save), B)
  }
  Y = add(X, matmul)
  output X, output
}
# EXPECT: 4:3: error: 'exp' is an operator name and cannot name a tensor
# EXPECT: 5:3: error: 'tile' is an operator name and cannot name a tensor
# EXPECT: 6:3: error: 'rms_norm' is an operator name and cannot name a tensor
# EXPECT: 7:3: error: 'kernel' is a keyword and cannot name a tensor
# EXPECT: 8:3: error: 'softmax' is an operator name and cannot name a tensor
# EXPECT: 9:5: error: 'save' is an operator name and cannot name a tensor
# EXPECT: 10:16: error: 'save' is an operator, expected '(' after it
# EXPECT: 12:14: error: 'matmul' is an operator, expected '(' after it
# EXPECT: 13:13: error: 'output' is a keyword, expected a tensor name
