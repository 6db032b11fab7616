# expect: equivalent
# exp of a random function applied to equal values
graph random_function_reused_a {
  X = input f16[8, 16]
  O = add(exp(sqrt(X)), exp(sqrt(X)))
  output O
}
