# A chain of element-wise operators inside one kernel is fused into the
# pass of its consumer (the save); a value used twice is materialized.
# expect-fast-path: 16-byte
graph fused_chain {
  X = input f16[32, 64]
  Y = input f16[32, 64]
  Z = kernel(X, Y) grid=[4, 2] {
    x = tile(X, imap={x:0, y:1})
    y = tile(Y, imap={x:0, y:1})
    a = mul(add(x, y), 3)
    b = gelu(a)
    c = div(silu(b), add(relu(a), 1))
    save(accum(sub(c, rsqrt(add(square(y), 0.5)))), Z, omap={x:0, y:1})
  }
  output Z
}
