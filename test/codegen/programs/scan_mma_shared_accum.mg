# A rescaled tensor-core accumulator too large for registers (128 warp
# tiles, 32 per warp): it lives in f32 shared memory and each fragment
# element is stored as acc * factor + product by the fragment store.
# expect-fast-path: mma.sync.m16n8k16
# check-variant: logits60 --fast-only --scale Q=145 --ulps 2
graph scan_mma_shared_accum {
  Q = input f16[1, 64, 64]
  K = input f16[1, 64, 128]
  V = input f16[1, 128, 256]
  O = kernel(Q, K, V) forloop=4 {
    q = tile(Q)                              # [1, 64, 64]
    k = tile(K, fmap=2)                      # [1, 64, 32]
    v = tile(V, fmap=1)                      # [1, 32, 256]
    s = mul(matmul(q, k), 0.125)
    m = scan(reduce_max(s, dim=2), op=max)   # [1, 64, 1]
    e = exp(sub(s, m))
    n = accum(matmul(e, v), rescale=m)       # [1, 64, 256]: 64 KiB of f32
    l = accum(reduce_sum(e, dim=2), rescale=m)
    save(div(n, l), O)
  }
  output O
}
