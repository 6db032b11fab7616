# Inside a kernel body every value is f32, except a matmul's two operands,
# which are rounded to the program's dtype first (tensor cores multiply f16).
# y = 1 + 2^-12 is kept in f32 by the row sum (Q - 1 = 2^-12), but as a
# matmul operand it is rounded to f16, where it is 1 (P - 1 = 0).
# in X: 1
# out DP: 0
# out DQ: 0.000244140625
# tol: 0
graph body_precision {
  X = input f16[1, 1]
  P, Q = kernel(X) {
    x = tile(X)
    y = add(x, 0.000244140625)
    save(accum(matmul(y, x)), P, dtype=f32)
    save(accum(reduce_sum(y, dim=1)), Q, dtype=f32)
  }
  DP = sub(P, 1)
  DQ = sub(Q, 1)
  output DP, DQ
}
