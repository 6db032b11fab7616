# expect: equivalent
# x / mean(y^2) = 16 x / sum(y^2): the sum is non-zero exactly where the mean
# is (mean = sum / 16), so both are defined on the same inputs
graph def_sum_divisor_where_input_divides_by_mean_a {
  X = input f16[8, 16]
  Y = input f16[8, 16]
  O = div(X, reduce_mean(square(Y), dim=1))
  output O
}
