# mirage-fuzz regression: a finding that was fixed (numerically-worse, an oracle false positive: RoPE
# attention in bf16 at magnitude 1000, two scores of a row closer than bf16's precision (1.1e-3 apart
# in the unshrunk program), so any rounding may pick either; the input program's picked the right one by luck (error 0), the
# candidate's the other. Fixed in the oracle (lib/fuzz/oracle.cpp): the candidate is held to the
# input's largest error over a few one-ulp nudges of the inputs, compare.h nudgedInputs.)
# The test replays it and expects the chain to pass.
# what the shrunk program shows:
#   inputs 'large': output 0 (out1): error against float64 0.949 for the candidate, 0 for the input program
# found by: mirage-fuzz --seed 777 (case 145); shrunk from 29 to 21 statements in 80 chain runs
# reproduce: mirage-fuzz --replay test/fuzz/regressions/rope-softmax-near-tie-bf16.mg --time-limit-per-case 3
# case-seed: 0x99b71d6e8717ed4b
graph fuzz_rope {
  x0 = input bf16[1, 16, 16]
  x1 = input bf16[1, 8, 16]
  x2 = input bf16[1, 8, 3]
  x3 = input bf16[16, 16]
  x4 = input bf16[16, 16]
  x5 = input bf16[8, 16]
  x6 = input bf16[8, 16]
  t0 = slice(x0, dim=2, start=8, end=16)
  t1 = neg(t0)
  t2 = slice(x0, dim=2, start=0, end=8)
  t3 = concat(t1, t2, dim=2)
  t4 = mul(x0, x3)
  t5 = mul(t3, x4)
  t6 = add(t4, t5)
  t7 = slice(x1, dim=2, start=8, end=16)
  t8 = neg(t7)
  t9 = slice(x1, dim=2, start=0, end=8)
  t10 = concat(t8, t9, dim=2)
  t11 = mul(x1, x5)
  t12 = mul(t10, x6)
  t13 = add(t11, t12)
  t14 = transpose(t13, dim0=1, dim1=2)
  t15 = matmul(t6, t14)
  t16 = mul(t15, 0.25)
  t17 = reduce_max(t16, dim=2)
  t18 = sub(t16, t17)
  t19 = exp(t18)
  out1 = matmul(t19, x2)
  output out1
}
