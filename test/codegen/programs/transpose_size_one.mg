# Found by mirage-fuzz: a program-level transpose that swaps a dim of extent
# 1 with a larger one. Its lowering splits the output's leading dim over the
# grid; the tile of the operand must follow the swapped dim (before the fix it
# was treated as a broadcast dim of extent 1, every block wrote the whole
# result, and the result was sized twice too large: heap corruption).
graph transpose_size_one {
  A = input f32[1, 17, 64]
  TA = transpose(A, dim0=2, dim1=0)
  output TA
}
