# Names in a kernel body are local, differ from the graph's names, and reach
# the enclosing graph only through tile() of the kernel's arguments.
graph kernel_names {
  X = input f16[16, 64]
  Y = input f16[16, 64]
  N = kernel(X) {
    X = tile(X)
    t = tile(X)
    t = exp(t)
    later = exp(t)
    u = exp(Y)
    v = tile(Y)
    w = exp(N)
    r = exp(X)
    q = tile(t)
    save(accum(t), N)
  }
  M = kernel(X) {
    output X
    z = input f16[4]
    k = kernel(X) {
    }
    save(accum(tile(X)), M)
  }
  later = exp(N)
  output later, M
}
# EXPECT: 7:5: error: 'X' is a name of the enclosing graph (bound at 4:3); names in a kernel body are local and must differ from the graph's
# EXPECT: 9:5: error: 't' is already bound at 8:5
# EXPECT: 10:5: error: 'later' is a name of the enclosing graph (bound at 25:3); names in a kernel body are local and must differ from the graph's
# EXPECT: 11:13: error: 'Y' is a tensor of the enclosing graph but not an argument of this kernel; a kernel body reads tensors only through tile() of its arguments
# EXPECT: 12:14: error: 'Y' is not an argument of this kernel; add it to kernel(...)
# EXPECT: 13:13: error: 'N' is a result of this kernel: it is written by save and cannot be read inside the body
# EXPECT: 14:9: error: kernel argument 'X' can only be used through tile()
# EXPECT: 15:14: error: tile takes a kernel argument, but 't' is a name of the kernel body
# EXPECT: 19:5: error: 'output' is not allowed inside a kernel body (kernel results are written by save)
# EXPECT: 20:9: error: 'input' is not allowed inside a kernel body
# EXPECT: 21:9: error: 'kernel' is not allowed inside a kernel body
