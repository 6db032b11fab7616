// The numerics check (../shared/spec/cli.md, "Numerical safety", third rule;
// docs/numerics.md): before mirage-opt may choose a verified
// candidate, the reference interpreter runs it at the program's dtype on
// random inputs of growing magnitude, beside the input program, and both are
// compared with a float64 evaluation of the input. The candidate is rejected
// when it gives inf or NaN where the input gives none, or when its error is
// far above the input's. The verifier proves equality over the reals; this
// catches what rounding does to a formula that is equal there (an exp
// without its max, a one-pass variance).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mirage/interp/reference64.h"
#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::driver {

// One way of filling a program's inputs at a "level" (a scale or an offset).
// Add a family here and a row to the schedule (numerics.cpp) to test a new
// kind of input.
struct InputFamily {
  const char* name;  // as in the report: "uniform", "offset"
  // An element of the program's input number `input` (0 the first) whose
  // uniform noise there is u in [-1, 1), before rounding to the dtype.
  double (*element)(double level, double u, size_t input);
  // A stress test (the offset family's values near 1000, for cancellation),
  // not the magnitudes ordinary inputs have: where the input program itself
  // fails there (an RMSNorm squares 1000 past f16's range) nobody is told.
  bool stress = false;
};

// One entry of the schedule: a family at a level.
struct Magnitude {
  const InputFamily* family;
  double level;
};

// The magnitudes tried for programs of `dtype`, in the order they are tried
// (the most revealing first, so that a time limit cuts the least useful).
std::vector<Magnitude> magnitudeSchedule(ir::DType dtype);

// The program's inputs at magnitude `m`: deterministic in (seed, m, the
// input's name), every element rounded to the program dtype.
std::vector<interp::Tensor> numericsInputs(const ir::Graph& program, const Magnitude& m, uint64_t seed);

// A candidate is rejected at a magnitude when, for some output, its error is
// above kErrorFactor times the input's plus kErrorFloorUlps units of the
// dtype's precision (2^-10 for f16, 2^-7 for bf16, 2^-23 for f32); see
// docs/numerics.md for why these figures.
inline constexpr double kErrorFactor = 4;
inline constexpr double kErrorFloorUlps = 4;
double dtypeEpsilon(ir::DType dtype);

// The input's own error above which mirage-opt says the input program is
// numerically unsafe at that magnitude (finite, but off by more than a
// quarter of its largest output: an intermediate overflowed or cancelled).
// Candidates are held to the input's error, so they may be as wrong; the
// user should know. docs/numerics.md, "The rule".
inline constexpr double kUnsafeInputError = 0.25;

// max |x - ref| / max |ref| over the elements (the absolute error when ref
// is all zeros); infinity when x has an inf or NaN.
double relativeError(const interp::Tensor& x, const interp::Tensor64& ref);

// What one magnitude showed.
struct MagnitudeOutcome {
  std::string family;
  double level = 0;
  bool stress = false;  // its family's (InputFamily::stress)
  // Not compared: the input itself gives inf or NaN (or the float64
  // reference is not finite), or the time limit came first.
  bool skipped = false;
  std::string skipReason;
  std::vector<double> inputError;      // per output, against float64
  std::vector<double> candidateError;  // per output; infinity for inf/NaN
  double maxAbsReference = 0;          // over the outputs: how large the values were
};

struct NumericsVerdict {
  bool checked = false;  // false: no magnitude compared
  bool passed = true;
  std::string reason;    // why it failed (or was not checked)
  std::vector<MagnitudeOutcome> magnitudes;
  double largestError = 0;       // the candidate's, over the magnitudes compared
  double inputLargestError = 0;  // the input's, over the same magnitudes
  bool cutByTime = false;        // some magnitude was skipped for the deadline
  double seconds = 0;
};

// The magnitude where the input's error is largest, when it is above
// kUnsafeInputError (its index in `v.magnitudes`); -1 otherwise. Stress
// magnitudes do not count.
int unsafeInputMagnitude(const NumericsVerdict& v);

// The check for one input program. The input's own results (its outputs at
// the dtype and the float64 reference, per magnitude) are computed on first
// use and kept, so each candidate costs one interpreter run per magnitude.
// Not safe to call from several threads at once; it runs the magnitudes on
// up to `threads` threads itself.
class NumericsCheck {
 public:
  NumericsCheck(ir::Graph input, uint64_t seed, int threads);

  // Without a deadline the magnitudes run in parallel. With one, the first
  // always runs, alone; the others follow only while one more batch is
  // expected to end by `deadline` (skipReason "time limit" for the rest). A
  // verdict with no magnitude compared has checked == false, and passed ==
  // true when the input gives inf or NaN at every magnitude (there is nothing
  // the candidate could be worse than) but false when the time limit cut it
  // (cutByTime: the candidate was not judged).
  NumericsVerdict check(const ir::Graph& candidate,
                        std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

 private:
  struct Baseline {
    bool computed = false;
    std::string skipReason;  // non-empty: this magnitude is skipped
    std::vector<interp::Tensor64> reference;
    std::vector<double> inputError;
    double maxAbsReference = 0;
    std::vector<interp::Tensor> inputs;  // kept when small (numerics.cpp)
  };
  void computeBaseline(size_t m, const std::vector<interp::Tensor>& inputs);

  ir::Graph input_;
  uint64_t seed_;
  int threads_;
  std::vector<Magnitude> schedule_;
  std::vector<Baseline> baseline_;
};

}  // namespace mirage::driver
