// How the oracle compares numbers: the input families it runs programs on,
// the error of a result against float64, and the ulp test between the
// interpreter and the CPU shim. The figures are the fuzzer's thresholds;
// docs/testing.md says why they are what they are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"
#include "mirage/interp/reference64.h"

namespace mirage::fuzz {

struct InputFamily {
  const char* name;
  double scale;    // elements are scale * u + offset, u uniform in [-1, 1)
  double offset;
  bool moderate;   // used for the equivalence check (f32 does not overflow)
};

// Random inputs, inputs at a large magnitude for the dtype, and inputs with
// a large common offset (what a max guard is for).
std::vector<InputFamily> inputFamilies(ir::DType dtype);

// The inputs of `program` for a family: deterministic in (seed, family,
// input name), rounded to the program dtype.
std::vector<interp::Tensor> familyInputs(const ir::Graph& program, const InputFamily& family, uint64_t seed);

// The inputs moved by one unit of the dtype's precision each, up or down at
// random (deterministic in seed), rounded to the dtype. The input program's
// error on them, against the float64 value at the unmoved inputs, says how
// much its outputs depend on rounding at all: where two softmax scores at a
// large magnitude are closer than the dtype's precision, any rounding may
// flip which one wins, and a candidate that rounds elsewhere is not worse
// for landing on the other one.
std::vector<interp::Tensor> nudgedInputs(const std::vector<interp::Tensor>& inputs, ir::DType dtype, uint64_t seed);
// How many nudges (seeds) the numerics check tries before it calls a
// candidate worse.
inline constexpr int kNudges = 8;

// 2^-10 (f16), 2^-7 (bf16), 2^-23 (f32).
double dtypeEpsilon(ir::DType dtype);

// max |x - ref| / max |ref| (the absolute error when ref is all zeros);
// infinity when x has an inf or NaN.
double relativeError(const interp::Tensor& x, const interp::Tensor64& ref);
bool allFinite(const std::vector<interp::Tensor64>& ts);
bool allFinite(const interp::Tensor& t);

// The candidate in f32 may differ from float64 by this much (relative to
// the output's largest element) before it counts as a wrong equivalence.
inline constexpr double kEquivalenceTolerance = 1e-2;
// Numerically worse: error above kWorseFactor times the input's plus
// kWorseFloorUlps units of the dtype's precision (the rule of the numerics
// check in mirage-opt, docs/numerics-check.md; kept separate so that the fuzzer checks that check).
inline constexpr double kWorseFactor = 4;
inline constexpr double kWorseFloorUlps = 4;
// Interpreter against shim: |a - b| may be kShimUlps units of the dtype's
// precision of max(|a|, |b|), plus kShimScaleUlps of the output's largest
// magnitude. Beyond that, an element still agrees when the shim is no
// further from the float64 value than kShimRefFactor times the
// interpreter's largest error over the same output: sums in another order
// round differently, and a chain that amplifies (an f32 sum of large terms
// that nearly cancel, an exp of a large argument) turns that into many ulps
// of the result in either program; that is rounding, not a disagreement.
inline constexpr double kShimUlps = 4;
inline constexpr double kShimScaleUlps = 2;
inline constexpr double kShimRefFactor = 4;

// Empty when a (interpreter) and b (shim) agree element by element within
// the tolerance above; else where and by how much they first differ. `ref`
// is the float64 value of the output (used where it is finite), or null.
std::string firstMismatch(const interp::Tensor& a, const interp::Tensor& b, const interp::Tensor64* ref, ir::DType dtype);

}  // namespace mirage::fuzz
