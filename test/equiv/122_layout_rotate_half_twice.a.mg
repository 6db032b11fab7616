# expect: equivalent
# RoPE's rotate_half(x) = concat(-x2, x1); applied twice it is -x
graph layout_rotate_half_twice_a {
  X = input f16[4, 64]
  O = mul(X, -1)
  output O
}
