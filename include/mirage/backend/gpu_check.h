// Before a GPU timing is trusted, the candidate must compute the right
// numbers on that GPU: run it once on seeded random inputs and compare every
// output with the reference interpreter's (mirage_interp) within the
// tolerance of the program's dtype.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/backend/gpu.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/ir/graph.h"

namespace mirage::backend {

struct GpuCheckResult {
  bool ok = false;
  // Why not: the run failed, the plan does not match the program, or
  // "output Y differs at [3, 17]: GPU 0.51, reference 0.25 (tolerance 0.0213)".
  std::string error;
  double maxAbsError = 0;  // over all outputs
  bool outputsDiffer = false;  // it ran, and an output is outside the tolerance
  // checkCandidate only: the outputs differ from the input program's
  // reference (`inputDiffers` says where) but match the candidate's own
  // μGraph interpreted on the same inputs.
  bool againstOwnGraph = false;
  std::string inputDiffers;
};

// Tolerance per dtype: |gpu - ref| <= atol * max|ref of that output| + rtol * |ref|.
struct CheckTolerance {
  double rtol = -1;  // < 0: the dtype's default (f16 3e-2, bf16 1e-1, f32 1e-3)
  double atol = -1;  // < 0: the dtype's default (f16 1e-2, bf16 5e-2, f32 1e-4)
};

// `program` is any graph computing the candidate's outputs from its inputs
// (the candidate's own μGraph or the input program): its inputs and outputs
// must match the plan's in number, shape and dtype. Inputs are
// interp::randomTensor(shape, dtype, seed, name) scaled by 1/2 (so exp and
// divisions stay in range).
GpuCheckResult checkAgainstInterpreter(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                                       const ir::Graph& program, uint64_t seed,
                                       const CheckTolerance& tolerance = {});

// The same check in two steps, so that many candidates of one program share
// one interpreter run: the inputs and the reference outputs (computed once),
// then each candidate's run compared with them.
struct CheckReference {
  std::string error;  // the interpreter failed: no candidate can be checked
  ir::DType dtype = ir::DType::F16;
  std::vector<ir::Shape> inputShapes, outputShapes;
  std::vector<std::vector<uint8_t>> inputBytes;  // per program input, in the dtype
  std::vector<std::vector<float>> outputs;       // per program output, f32
};
CheckReference makeCheckReference(const ir::Graph& program, uint64_t seed);
GpuCheckResult checkAgainstReference(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                                     const CheckReference& reference, const CheckTolerance& tolerance = {});

// A candidate's check when the input program's reference may itself be off
// at the check's inputs: the input program's outputs are computed in the
// dtype, and where an intermediate overflows or cancels (an f16 RMSNorm
// squaring a residual in the thousands), a candidate that keeps that
// intermediate in f32 is right and still differs. So outputs that differ
// from `programReference` are compared again with the candidate's own μGraph
// interpreted on the same inputs (same seed, same names). Matching it shows
// the GPU computes what was proven equivalent; whether that is numerically
// acceptable is the driver's numerics check, against float64, before any
// measurement. A candidate that differs from both fails with the own-graph
// difference.
GpuCheckResult checkCandidate(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                              const CheckReference& programReference, const ir::Graph& candidate, uint64_t seed,
                              const CheckTolerance& tolerance = {});

}  // namespace mirage::backend
