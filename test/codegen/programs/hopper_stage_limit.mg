# 48 KiB stages next to a 48 KiB accumulator: four stages would need 240 KiB,
# more than sm_90's 227 KiB, so the Hopper path takes three (192 KiB + the
# mbarriers). The sm_80 default double-buffers (144 KiB).
# expect-fast-path: cp.async double buffering
# expect-hopper-path: 3-stage mbarrier pipeline
graph hopper_stage_limit {
  A = input f32[384, 128]
  S = kernel(A) grid=[1] forloop=4 {
    a = tile(A, fmap=0)
    save(accum(a), S)
  }
  output S
}
