# x + 4611686018427377339 is not x
graph trap_add_huge_constant_b {
  X = input f16[8, 16]
  O = add(X, 0)
  output O
}
