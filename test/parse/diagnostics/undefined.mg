# Names must be bound before they are used; a cycle through names shows up
# as a use before the binding.
graph undefined {
  X = input f16[16, 64]
  A = exp(Nope)
  B = exp(C)
  C = exp(B)
  D = add(D, X)
  E = relu(A)
  output X, E
}
# EXPECT: 5:11: error: use of undefined name 'Nope'
# EXPECT: 6:11: error: 'C' is used before it is bound (at 7:3)
# EXPECT: 8:11: error: 'D' is used in its own definition
