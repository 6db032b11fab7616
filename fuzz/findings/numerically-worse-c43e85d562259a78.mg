# mirage-fuzz finding: numerically-worse
# what the shrunk program shows:
#   inputs 'large': output 0 (out0): error against float64 1.87 for the candidate, 0.337 for the input program
# found by: mirage-fuzz --seed 3000 (case 227); shrunk from 12 to 11 statements in 30 chain runs
# reproduce: mirage-fuzz --replay fuzz/findings/numerically-worse-c43e85d562259a78.mg --time-limit-per-case 2
# case-seed: 0xc43e85d562259a78
graph fuzz_mlp {
  x0 = input bf16[4, 5]
  x1 = input bf16[5, 64]
  t0 = matmul(x0, x1)
  t1 = relu(t0)
  x2 = input bf16[5, 64]
  t2 = matmul(x0, x2)
  t3 = mul(t1, t2)
  x3 = input bf16[64, 64]
  t4 = matmul(t3, x3)
  t5 = matmul(t4, x3)
  t6 = square(t5)
  t7 = rsqrt(t6)
  t8 = matmul(t7, x3)
  t9 = gelu(t8)
  out0 = silu(t9)
  output out0
}
