# A program starts with `graph NAME {`.
X = input f16[16, 64]
# EXPECT: 2:1: error: expected 'graph' at the start of the program, found 'X'
