# expect: not-equivalent
# x + 4611686018427377339 is not x
graph trap_add_huge_constant_a {
  X = input f16[8, 16]
  O = add(X, 4611686018427377339)
  output O
}
