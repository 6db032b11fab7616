# Unknown operators, operand counts and keyword arguments.
graph operators {
  X = input f16[16, 64]
  A = gemm(X, X)
  B = exp(X, X)
  C = add(X)
  D = reduce_sum(X)
  E = reduce_sum(X, dim=1, dim=0)
  F = reduce_mean(X, dim=1, size=2)
  G = exp(X, dim=1)
  H = reduce_max(dim=1, X)
  I = reduce_max(X, dim=1.5)
  J = reduce_max(X, dim={x:0})
  K = transpose(X, dim0=0)
  L = rms_norm(X, eps=big)
  M = softmax(X, dim=0, eps=1)
  output X
}
# EXPECT: 4:7: error: unknown operator 'gemm'
# EXPECT: 5:7: error: 'exp' takes 1 operand, got 2
# EXPECT: 6:7: error: 'add' takes 2 operands, got 1
# EXPECT: 7:7: error: 'reduce_sum' needs a 'dim=' argument
# EXPECT: 8:28: error: argument 'dim' is given twice
# EXPECT: 9:29: error: 'reduce_mean' has no argument 'size' (expected dim)
# EXPECT: 10:14: error: 'exp' takes no keyword arguments, found 'dim='
# EXPECT: 11:25: error: positional argument after keyword arguments
# EXPECT: 12:25: error: 'dim' must be an integer, found number '1.5'
# EXPECT: 13:25: error: 'dim' takes a single value, not a map
# EXPECT: 14:7: error: 'transpose' needs a 'dim1=' argument
# EXPECT: 15:23: error: 'eps' takes a number, found 'big'
# EXPECT: 16:25: error: 'softmax' has no argument 'eps' (expected dim)
