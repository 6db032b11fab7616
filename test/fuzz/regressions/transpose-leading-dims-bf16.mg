# mirage-fuzz regression: a finding that was fixed (crash: the .cu of a transpose
# corrupted the heap under the CPU shim; fixed by codegen commit d7558eb, a lowered transpose
# tiles its operand along the swapped dim also where that dim has extent 1).
# The test replays it and expects the chain to pass.
# what the shrunk program shows:
#   the case's process was killed by signal 6 (Aborted); its last messages:
#   malloc(): invalid size (unsorted)
# found by: mirage-fuzz --seed 1000 (case 6); shrunk from 4 to 1 statements in 31 chain runs
# reproduce: mirage-fuzz --replay test/fuzz/regressions/transpose-leading-dims-bf16.mg --time-limit-per-case 2
# case-seed: 0x78d4c85bbc81dd69
graph fuzz_plain {
  t1 = input bf16[1, 2, 23, 23]
  out0 = transpose(t1, dim0=0, dim1=1)
  output out0
}
