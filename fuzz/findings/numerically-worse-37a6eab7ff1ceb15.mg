# mirage-fuzz finding: numerically-worse
# what the shrunk program shows:
#   inputs 'uniform': output 0 (out0): error against float64 0.395 for the candidate, 0.0582 for the input program
# found by: mirage-fuzz --seed 20261201 (case 533); shrunk from 9 to 7 statements in 60 chain runs
# reproduce: mirage-fuzz --replay fuzz/findings/numerically-worse-37a6eab7ff1ceb15.mg --time-limit-per-case 2
# case-seed: 0x37a6eab7ff1ceb15
graph fuzz_chain {
  x0 = input bf16[4, 48]
  x1 = input bf16[48, 8]
  t0 = matmul(x0, x1)
  x2 = input bf16[8, 3]
  t1 = matmul(t0, x2)
  t2 = silu(t1)
  x3 = input bf16[3, 8]
  t3 = matmul(t2, x3)
  t4 = exp(t3)
  t5 = sqrt(t4)
  out0 = exp(t5)
  output out0
}
