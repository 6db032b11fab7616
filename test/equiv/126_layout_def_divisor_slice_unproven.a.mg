# expect: not-proven
# only half of Y is a divisor in the .a program, so nothing is known about the
# other half, which the .b program divides by
graph layout_def_divisor_slice_unproven_a {
  X = input f16[4, 8]
  Y = input f16[4, 16]
  O = add(div(X, slice(Y, dim=1, start=0, end=8)), mul(slice(Y, dim=1, start=8, end=16), 0))
  output O
}
