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

std::string mismatch(const LaunchPlan& plan, const ir::Graph& program) {
  if (plan.inputs.size() != program.inputs.size() || plan.outputs.size() != program.outputs.size())
    return fmt::format("the plan has {} inputs and {} outputs, the program {} and {}", plan.inputs.size(),
                       plan.outputs.size(), program.inputs.size(), program.outputs.size());
  auto same = [&](const PlanBuffer& b, ir::ValueId v) {
    return b.dtype == program.dtype && b.shape == program.value(v).shape;
  };
  for (size_t i = 0; i < plan.inputs.size(); ++i)
    if (!same(plan.inputs[i], program.inputs[i]))
      return fmt::format("plan input {} is {}{}, the program's {}{}", plan.inputs[i].name,
                         ir::dtypeName(plan.inputs[i].dtype), ir::shapeToString(plan.inputs[i].shape),
                         ir::dtypeName(program.dtype), ir::shapeToString(program.value(program.inputs[i]).shape));
  for (size_t i = 0; i < plan.outputs.size(); ++i)
    if (!same(plan.outputs[i], program.outputs[i]))
      return fmt::format("plan output {} is {}{}, the program's {}{}", plan.outputs[i].name,
                         ir::dtypeName(plan.outputs[i].dtype), ir::shapeToString(plan.outputs[i].shape),
                         ir::dtypeName(program.dtype), ir::shapeToString(program.value(program.outputs[i]).shape));
  return {};
}

}  // namespace

GpuCheckResult checkAgainstInterpreter(Gpu& gpu, const LaunchPlan& plan, const CompileResult& binary,
                                       const ir::Graph& program, uint64_t seed,
                                       const CheckTolerance& tolerance) {
  GpuCheckResult result;
  if (std::string e = mismatch(plan, program); !e.empty()) {
    result.error = e;
    return result;
  }
  const ir::DType dtype = program.dtype;
  const double rtol = tolerance.rtol >= 0 ? tolerance.rtol
                      : dtype == ir::DType::F16 ? 3e-2 : dtype == ir::DType::BF16 ? 1e-1 : 1e-3;
  const double atol = tolerance.atol >= 0 ? tolerance.atol
                      : dtype == ir::DType::F16 ? 1e-2 : dtype == ir::DType::BF16 ? 5e-2 : 1e-4;

  std::vector<interp::Tensor> inputs;
  std::vector<std::vector<uint8_t>> inputBytes;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    interp::Tensor t = interp::randomTensor(plan.inputs[i].shape, dtype, seed, plan.inputs[i].name);
    for (float& v : t.data) v = interp::roundToDType(v * 0.5f, dtype);
    inputBytes.push_back(tensorToBytes(t, dtype));
    inputs.push_back(std::move(t));
  }
  std::vector<interp::Tensor> reference;
  try {
    reference = interp::evaluate(program, inputs);
  } catch (const std::exception& e) {
    result.error = fmt::format("the reference interpreter failed: {}", e.what());
    return result;
  }
  RunResult run = gpu.run(plan, binary, inputBytes);
  if (!run.ok) {
    result.error = run.error;
    return result;
  }
  for (size_t o = 0; o < plan.outputs.size(); ++o) {
    const interp::Tensor& ref = reference[o];
    double scale = 0;
    for (float v : ref.data)
      if (std::isfinite(v)) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double r = ref.data[static_cast<size_t>(i)];
      const double g = elementAt(run.outputs[o], i, dtype);
      const double allowed = atol * scale + rtol * std::fabs(r);
      const double diff = std::fabs(g - r);
      const bool bad = std::isfinite(r) ? !(diff <= allowed) : !(std::isnan(r) ? std::isnan(g) : g == r);
      if (std::isfinite(diff)) result.maxAbsError = std::max(result.maxAbsError, diff);
      if (bad) {
        result.error = fmt::format("output {} differs at {}: GPU {}, reference {} (tolerance {:.3g})",
                                   plan.outputs[o].name, ir::shapeToString(interp::unflatIndex(ref.shape, i)), g,
                                   r, allowed);
        return result;
      }
    }
  }
  result.ok = true;
  return result;
}

}  // namespace mirage::backend
