# Two f32 tiles of 160 KiB each cannot fit in shared memory on any target.
# expect-error: shared memory
graph shared_memory_limit {
  A = input f32[64, 640]
  B = input f32[64, 640]
  C = kernel(A, B) {
    a = tile(A)
    b = tile(B)
    save(accum(add(a, b)), C)
  }
  output C
}
