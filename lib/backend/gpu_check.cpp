// Comparing a candidate's GPU outputs with the reference interpreter.
#include "mirage/backend/gpu_check.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"
#include "mirage/interp/tensor.h"
#include "tensor_bytes.h"

namespace mirage::backend {

namespace {

std::string mismatch(const LaunchPlan& plan, const CheckReference& ref) {
  if (plan.inputs.size() != ref.inputShapes.size() || plan.outputs.size() != ref.outputShapes.size())
    return fmt::format("the plan has {} inputs and {} outputs, the program {} and {}", plan.inputs.size(),
                       plan.outputs.size(), ref.inputShapes.size(), ref.outputShapes.size());
  auto differ = [&](const char* what, const PlanBuffer& b, const ir::Shape& shape) {
    if (b.dtype == ref.dtype && b.shape == shape) return std::string();
    return fmt::format("plan {} {} is {}{}, the program's {}{}", what, b.name, ir::dtypeName(b.dtype),
                       ir::shapeToString(b.shape), ir::dtypeName(ref.dtype), ir::shapeToString(shape));
  };
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    if (std::string e = differ("input", plan.inputs[i], ref.inputShapes[i]); !e.empty()) return e;
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    if (std::string e = differ("output", plan.outputs[i], ref.outputShapes[i]); !e.empty()) return e;
  return {};
}

// The program's signature alone: what a plan is matched against.
CheckReference signatureOf(const ir::Graph& program) {
  CheckReference ref;
  ref.dtype = program.dtype;
  for (ir::ValueId v : program.inputs) ref.inputShapes.push_back(program.value(v).shape);
  for (ir::ValueId v : program.outputs) ref.outputShapes.push_back(program.value(v).shape);
  return ref;
}

}  // namespace

CheckReference makeCheckReference(const ir::Graph& program, uint64_t seed) {
  CheckReference ref = signatureOf(program);
  std::vector<interp::Tensor> inputs;
  for (ir::ValueId v : program.inputs) {
    const ir::Value& value = program.value(v);
    interp::Tensor t = interp::randomTensor(value.shape, program.dtype, seed, value.name);
    for (float& x : t.data) x = interp::roundToDType(x * 0.5f, program.dtype);
    ref.inputBytes.push_back(tensorToBytes(t, program.dtype));
    inputs.push_back(std::move(t));
  }
  try {
    for (interp::Tensor& t : interp::evaluate(program, inputs)) ref.outputs.push_back(std::move(t.data));
  } catch (const std::exception& e) {
    ref.error = fmt::format("the reference interpreter failed: {}", e.what());
  }
  return ref;
}

namespace {

// Every output of a finished run against the reference's, within the dtype's
// tolerance; the first element that differs is the error.
GpuCheckResult compareOutputs(const LaunchPlan& plan, const RunResult& run, const CheckReference& reference,
                              const CheckTolerance& tolerance) {
  GpuCheckResult result;
  const ir::DType dtype = reference.dtype;
  const double rtol = tolerance.rtol >= 0 ? tolerance.rtol
                      : dtype == ir::DType::F16 ? 3e-2 : dtype == ir::DType::BF16 ? 1e-1 : 1e-3;
  const double atol = tolerance.atol >= 0 ? tolerance.atol
                      : dtype == ir::DType::F16 ? 1e-2 : dtype == ir::DType::BF16 ? 5e-2 : 1e-4;
  for (size_t o = 0; o < plan.outputs.size(); ++o) {
    const std::vector<float>& ref = reference.outputs[o];
    double scale = 0;
    for (float v : ref)
      if (std::isfinite(v)) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    for (size_t i = 0; i < ref.size(); ++i) {
      const double r = ref[i];
      const double g = elementAt(run.outputs[o], static_cast<int64_t>(i), dtype);
      const double allowed = atol * scale + rtol * std::fabs(r);
      const double diff = std::fabs(g - r);
      const bool bad = std::isfinite(r) ? !(diff <= allowed) : !(std::isnan(r) ? std::isnan(g) : g == r);
      if (std::isfinite(diff)) result.maxAbsError = std::max(result.maxAbsError, diff);
      if (bad) {
        result.outputsDiffer = true;
        result.error = fmt::format(
            "output {} differs at {}: GPU {}, reference {} (tolerance {:.3g})", plan.outputs[o].name,
            ir::shapeToString(interp::unflatIndex(reference.outputShapes[o], static_cast<int64_t>(i))), g, r,
            allowed);
        return result;
      }
    }
  }
  result.ok = true;
  return result;
}

// checkAgainstReference, keeping the run (when it ran) in *run.
GpuCheckResult runAndCompare(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                             const CheckReference& reference, const CheckTolerance& tolerance, RunResult* run) {
  GpuCheckResult result;
  if (!reference.error.empty()) {
    result.error = reference.error;
    return result;
  }
  if (std::string e = mismatch(plan, reference); !e.empty()) {
    result.error = e;
    return result;
  }
  *run = gpu.run(plan, binary, reference.inputBytes);
  if (!run->ok) {
    result.error = run->error;
    return result;
  }
  return compareOutputs(plan, *run, reference, tolerance);
}

}  // namespace

GpuCheckResult checkAgainstReference(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                                     const CheckReference& reference, const CheckTolerance& tolerance) {
  RunResult run;
  return runAndCompare(gpu, plan, binary, reference, tolerance, &run);
}

GpuCheckResult checkAgainstInterpreter(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                                       const ir::Graph& program, uint64_t seed,
                                       const CheckTolerance& tolerance) {
  // A plan that does not match is refused before the interpreter runs.
  if (std::string e = mismatch(plan, signatureOf(program)); !e.empty()) {
    GpuCheckResult refused;
    refused.error = e;
    return refused;
  }
  return checkAgainstReference(gpu, plan, binary, makeCheckReference(program, seed), tolerance);
}

GpuCheckResult checkCandidate(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                              const CheckReference& programReference, const ir::Graph& candidate, uint64_t seed,
                              const CheckTolerance& tolerance) {
  RunResult run;
  GpuCheckResult first = runAndCompare(gpu, plan, binary, programReference, tolerance, &run);
  // Only a difference in the numbers is worth a second look: a failed run,
  // a mismatched plan or a failed interpreter is the same either way.
  if (!first.outputsDiffer) return first;
  // The candidate has the program's inputs (names, shapes, dtype), so its
  // reference is drawn on the same input bytes and the run is compared again
  // rather than repeated; should they differ, the plan runs on its own.
  CheckReference ownReference = makeCheckReference(candidate, seed);
  const bool reuseRun = ownReference.error.empty() && mismatch(plan, ownReference).empty() &&
                        ownReference.inputBytes == programReference.inputBytes;
  GpuCheckResult own = reuseRun ? compareOutputs(plan, run, ownReference, tolerance)
                                : checkAgainstReference(gpu, plan, binary, ownReference, tolerance);
  if (!own.ok) {
    own.error = fmt::format("{} (against its own μGraph; against the input program: {})", own.error, first.error);
    return own;
  }
  own.againstOwnGraph = true;
  own.inputDiffers = first.error;
  return own;
}

}  // namespace mirage::backend
