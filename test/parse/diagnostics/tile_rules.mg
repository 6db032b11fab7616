# tile: grid and for-loop splits divide exactly, two grid dims of extent > 1
# never split the same dim, map targets are in range.
graph tile_rules {
  Q = input f16[2, 100, 64]
  R = kernel(Q) grid=[2, 16, 4] forloop=3 {
    a = tile(Q, imap={x:0, y:1})
    b = tile(Q, imap={x:0}, fmap=2)
    c = tile(Q, imap={x:0, z:0})
    d = tile(Q, imap={x:3})
    e = tile(Q, fmap=-4)
    f = tile(Q, imap={w:0})
    g = tile(Q, imap={x:0, x:1})
    h = tile(Q, imap=[0])
    i = tile(Q, imap={x:0, y:2, z:-1})
    save(accum(i), R, omap={x:0, y:2, z:1})
  }
  output R
}
# EXPECT: 6:9: error: grid dim y (16 blocks) does not divide dim 1 of 'Q' (extent 100)
# EXPECT: 7:9: error: forloop 3 does not divide dim 2 of the tile of 'Q' (extent 64)
# EXPECT: 8:9: error: grid dims x and z both split dim 0 of 'Q'
# EXPECT: 9:25: error: imap maps grid dim x to dim 3, out of range for a tensor of rank 3
# EXPECT: 10:22: error: fmap -4 is out of range for a tensor of rank 3
# EXPECT: 11:23: error: unknown grid dim 'w' (expected x, y or z)
# EXPECT: 12:28: error: grid dim x is mapped twice
# EXPECT: 13:22: error: expected a value for 'imap', found '['
# EXPECT: 14:9: error: grid dims y and z both split dim 2 of 'Q'
