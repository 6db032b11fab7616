# mirage-fuzz finding: interp-shim-mismatch
# what the shrunk program shows:
#   inputs 'large': output 0 (out0): at [0, 28] the interpreter gives 3.3444400872278086e+32 and the shim 3.344465619741119e+32 (float64: 3.344441417837804e+32; the interpreter's largest error on this output 1.33e+26; tolerance 2.39e+26)
# found by: mirage-fuzz --seed 20261201 (case 647); shrunk from 4 to 2 statements in 7 chain runs
# reproduce: mirage-fuzz --replay fuzz/findings/interp-shim-mismatch-573df06d839478ee.mg --time-limit-per-case 2
# case-seed: 0x573df06d839478ee
graph fuzz_chain {
  x5 = input f32[64, 64]
  t0 = reduce_mean(x5, dim=0)
  out0 = exp(t0)
  output out0
}
