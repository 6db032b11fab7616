# mirage-fuzz finding: numerically-worse
# what the shrunk program shows:
#   inputs 'uniform': output 0 (out0): error against float64 1.19e-06 for the candidate, 9.24e-09 for the input program
# found by: mirage-fuzz --replay p49s.mg; shrunk from 7 to 3 statements in 50 chain runs
# reproduce: mirage-fuzz --replay fuzz/findings/numerically-worse-9d405004f9db1d16.mg --time-limit-per-case 3
# case-seed: 0x9d405004f9db1d16
graph fuzz_rmsnorm {
  x0 = input f32[1, 8]
  t0 = reduce_mean(x0, dim=1)
  t1 = sqrt(t0)
  out0 = sub(t0, t1)
  output out0
}
