# The version 2 element-wise operators and shorthands: operand counts,
# keyword arguments, numbers where a tensor is needed, reserved names.
graph new_operators {
  X = input f16[16, 64]
  A = maximum(X)
  B = minimum(X, X, X)
  C = neg(X, X)
  D = abs()
  E = tanh(X, dim=1)
  F = sigmoid(X, eps=1)
  G = log(2)
  H = maximum(1, 2)
  I = layer_norm(X, size=2)
  J = layer_norm(X, dim=2)
  K = gelu_tanh(X, dim=-1)
  L = gelu_tanh(X, X)
  M = layer_norm(X, eps=tiny)
  tanh = exp(X)
  N = minimum(X, dim=0)
  output X
}
# EXPECT: 5:7: error: 'maximum' takes 2 operands, got 1
# EXPECT: 6:7: error: 'minimum' takes 2 operands, got 3
# EXPECT: 7:7: error: 'neg' takes 1 operand, got 2
# EXPECT: 8:7: error: 'abs' takes 1 operand, got 0
# EXPECT: 9:15: error: 'tanh' takes no keyword arguments, found 'dim='
# EXPECT: 10:18: error: 'sigmoid' takes no keyword arguments, found 'eps='
# EXPECT: 11:11: error: 'log' takes a tensor, not a number
# EXPECT: 12:7: error: 'maximum' needs at least one tensor operand
# EXPECT: 13:21: error: 'layer_norm' has no argument 'size' (expected dim, eps)
# EXPECT: 14:25: error: dim 2 is out of range for a tensor of rank 2
# EXPECT: 15:20: error: 'gelu_tanh' takes no keyword arguments, found 'dim='
# EXPECT: 16:7: error: 'gelu_tanh' takes 1 operand, got 2
# EXPECT: 17:25: error: 'eps' takes a number, found 'tiny'
# EXPECT: 18:3: error: 'tanh' is an operator name and cannot name a tensor
# EXPECT: 19:7: error: 'minimum' takes 2 operands, got 1
