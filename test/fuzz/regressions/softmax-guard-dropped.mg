# mirage-fuzz regression: a finding that was fixed (numerically-worse: mirage-opt
# chose softmax without its max guard; fixed once mirage-opt's numerics check, lib/driver/numerics.cpp, reached main).
# The test replays it and expects the chain to pass.
# what the shrunk program shows:
#   inputs 'large': output 0 (out1): error against float64 inf for the candidate, 1.32e-186 for the input program
# found by: mirage-fuzz --seed 100 (case 14); shrunk from 12 to 5 statements in 50 chain runs
# reproduce: mirage-fuzz --replay test/fuzz/regressions/softmax-guard-dropped.mg --time-limit-per-case 3
# case-seed: 0x15ea9838daa0bc8e
graph fuzz_attention {
  cut4 = input bf16[1, 1, 8]
  t0 = reduce_max(cut4, dim=2)
  t1 = sub(cut4, t0)
  t2 = exp(t1)
  t3 = reduce_sum(t2, dim=2)
  out1 = div(t2, t3)
  output out1
}
