# Element-wise binary operators with NumPy broadcasting and numbers on
# either side. A = [[1 2 3] [4 5 6]], R = [10 20 30], C = [[2] [4]].
# in A: 1 2 3 4 5 6
# in R: 10 20 30
# in C: 2 4
# in D: 1 2 3 4 5 6
# out ADD: 11 22 33 14 25 36
# out SUB: 1 0 -1 0 -1 -2
# out MUL: 20 40 60 40 80 120
# out DIV: 0.5 1 1.5 1 1.25 1.5
# out HALF: 0.5 1 1.5 2 2.5 3
# out NEG: 0 -1 -2 -3 -4 -5
# out INV: 0.5 0.25
# out LEAD: 3 4 5 5 6 7 6 7 8 8 9 10
graph broadcast {
  A = input f32[2, 3]
  R = input f32[3]
  C = input f32[2, 1]
  D = input f32[2, 1, 3]
  ADD = add(A, R)
  SUB = sub(C, A)
  MUL = mul(C, R)
  DIV = div(A, C)
  HALF = mul(A, 0.5)
  NEG = sub(1, A)
  INV = div(1, C)
  LEAD = add(D, C)
  output ADD, SUB, MUL, DIV, HALF, NEG, INV, LEAD
}
