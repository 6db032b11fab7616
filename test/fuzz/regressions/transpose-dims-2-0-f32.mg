# mirage-fuzz regression: a finding that was fixed (crash: the .cu of a transpose
# corrupted the heap under the CPU shim; fixed by codegen commit d7558eb, a lowered transpose
# tiles its operand along the swapped dim also where that dim has extent 1).
# The test replays it and expects the chain to pass.
# what the shrunk program shows:
#   the case's process was killed by signal 6 (Aborted); its last messages:
#   malloc(): invalid size (unsorted)
# found by: mirage-fuzz --seed 1000 (case 275); shrunk from 11 to 1 statements in 40 chain runs
# reproduce: mirage-fuzz --replay test/fuzz/regressions/transpose-dims-2-0-f32.mg --time-limit-per-case 2
# case-seed: 0x87df587791f37760
graph fuzz_rmsnorm {
  t7 = input f32[1, 17, 64]
  out0 = transpose(t7, dim0=2, dim1=0)
  output out0
}
