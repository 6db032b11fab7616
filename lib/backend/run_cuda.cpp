// mirage-run KERNEL.cu --device cuda; see run_cuda.h.
#include "mirage/backend/run_cuda.h"

#include <optional>
#include <ostream>

#include <fmt/format.h>

#include "mirage/backend/gpu.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/codegen/cu_file.h"
#include "mirage/interp/tensor.h"
#include "tensor_bytes.h"

namespace mirage::backend {

namespace {

// The plan's buffers as the tensors of a run (codegen/cu_file.h).
std::vector<codegen::TensorSignature> tensorsOf(const std::vector<PlanBuffer>& buffers) {
  std::vector<codegen::TensorSignature> tensors;
  for (const PlanBuffer& b : buffers) tensors.push_back({b.name, b.dtype, b.shape});
  return tensors;
}

}  // namespace

int runCudaFileOnGpu(const std::string& path, const interp::RunOptions& options, std::ostream& out,
                     std::ostream& err, const CudaRunOptions& cuda) {
  auto fail = [&](const std::string& message, int status) {
    err << "mirage-run: error: " << message << "\n";
    return status;
  };
  std::string source;
  if (std::string e = codegen::readCuFile(path, source); !e.empty()) return fail(e, interp::kExitFailed);
  std::string planError;
  std::optional<LaunchPlan> plan = parseLaunchPlan(source, &planError);
  if (!plan) return fail(fmt::format("{}: {}", path, planError), interp::kExitFailed);
  const std::vector<codegen::TensorSignature> planInputs = tensorsOf(plan->inputs);
  const std::vector<codegen::TensorSignature> planOutputs = tensorsOf(plan->outputs);

  // Names first: a mistyped name is a command-line error and should not
  // cost a GPU start.
  if (std::string e = codegen::checkRunNames(options, planInputs, planOutputs, path); !e.empty())
    return fail(e, interp::kExitBadCommand);

  // Inputs exactly as the .mg path makes them, so the two runs compare.
  std::vector<interp::Tensor> tensors;
  if (std::string e = codegen::makeRunInputs(options, planInputs, tensors); !e.empty())
    return fail(e, interp::kExitFailed);
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < tensors.size(); ++i) inputs.push_back(tensorToBytes(tensors[i], plan->inputs[i].dtype));

  std::string whyNot;
  std::unique_ptr<Gpu> gpu = Gpu::open(&whyNot, cuda.device, cuda.driverLibrary);
  if (!gpu) return fail(whyNot, interp::kExitFailed);

  CompileResult binary;
  if (!plan->launches.empty()) {  // a plan of copies only needs no kernels
    Compiler compiler;
    CompileRequest request;
    request.source = source;
    request.arch = gpu->props().archString();
    request.label = path;
    binary = compiler.compile(request);
    if (!binary.ok) {
      err << "mirage-run: error: " << path << ": NVRTC failed for " << request.arch << ": " << binary.error
          << "\n";
      if (!binary.log.empty()) err << binary.log << "\n";
      return interp::kExitFailed;
    }
  }
  RunResult run = gpu->run(*plan, binary, inputs);
  if (!run.ok) return fail(fmt::format("{}: on {}: {}", path, gpu->props().name, run.error), interp::kExitFailed);

  std::vector<interp::Tensor> results;
  for (size_t i = 0; i < plan->outputs.size(); ++i)
    results.push_back(bytesToTensor(run.outputs[i], plan->outputs[i].shape, plan->outputs[i].dtype));
  if (std::string e = codegen::writeRunOutputs(options, planOutputs, results, out); !e.empty())
    return fail(e, interp::kExitFailed);
  return interp::kExitOk;
}

}  // namespace mirage::backend
