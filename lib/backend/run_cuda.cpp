// mirage-run KERNEL.cu --device cuda; see run_cuda.h.
#include "mirage/backend/run_cuda.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "mirage/backend/gpu.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/interp/npy.h"
#include "mirage/interp/tensor.h"
#include "tensor_bytes.h"

namespace mirage::backend {

namespace {

int indexOf(const std::vector<PlanBuffer>& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string namesOf(const std::vector<PlanBuffer>& list) {
  std::vector<std::string> n;
  for (const PlanBuffer& b : list) n.push_back(b.name);
  return fmt::format("{}", fmt::join(n, ", "));
}

}  // namespace

int runCudaFileOnGpu(const std::string& path, const interp::RunOptions& options, std::ostream& out,
                     std::ostream& err, const CudaRunOptions& cuda) {
  auto fail = [&](const std::string& message, int status) {
    err << "mirage-run: error: " << message << "\n";
    return status;
  };
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(fmt::format("{}: cannot open the file", path), interp::kExitFailed);
  std::stringstream ss;
  ss << file.rdbuf();
  const std::string source = ss.str();
  std::string planError;
  std::optional<LaunchPlan> plan = parseLaunchPlan(source, &planError);
  if (!plan) return fail(fmt::format("{}: {}", path, planError), interp::kExitFailed);

  // Names first: a mistyped name is a command-line error and should not
  // cost a GPU start.
  std::set<std::string> seen;
  for (const interp::NamedFile& f : options.inputs) {
    if (indexOf(plan->inputs, f.name) < 0)
      return fail(fmt::format("--in {}: {} has no input '{}' (its inputs: {})", f.name, path, f.name,
                              namesOf(plan->inputs)),
                  interp::kExitBadCommand);
    if (!seen.insert(f.name).second)
      return fail(fmt::format("--in {} is given twice", f.name), interp::kExitBadCommand);
  }
  seen.clear();
  for (const interp::NamedFile& f : options.outputs) {
    if (indexOf(plan->outputs, f.name) < 0)
      return fail(fmt::format("--out {}: {} has no output '{}' (its outputs: {})", f.name, path, f.name,
                              namesOf(plan->outputs)),
                  interp::kExitBadCommand);
    if (!seen.insert(f.name).second)
      return fail(fmt::format("--out {} is given twice", f.name), interp::kExitBadCommand);
  }

  // Inputs exactly as the .mg path makes them, so the two runs compare.
  std::vector<std::vector<uint8_t>> inputs;
  for (const PlanBuffer& b : plan->inputs) {
    auto given = std::find_if(options.inputs.begin(), options.inputs.end(),
                              [&](const interp::NamedFile& f) { return f.name == b.name; });
    interp::Tensor t;
    if (given == options.inputs.end()) {
      t = interp::randomTensor(b.shape, b.dtype, options.seed, b.name);
    } else {
      try {
        t = interp::readNpy(given->file, b.dtype);
      } catch (const interp::NpyError& e) {
        return fail(e.what(), interp::kExitFailed);
      }
      if (t.shape != b.shape)
        return fail(fmt::format("{}: shape {} does not match input '{}' {}{}", given->file,
                                ir::shapeToString(t.shape), b.name, ir::dtypeName(b.dtype),
                                ir::shapeToString(b.shape)),
                    interp::kExitFailed);
    }
    inputs.push_back(tensorToBytes(t, b.dtype));
  }

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
  if (options.outputs.empty()) {
    for (size_t i = 0; i < results.size(); ++i) out << interp::summarizeOutput(plan->outputs[i].name, plan->outputs[i].dtype, results[i]) << "\n";
    return interp::kExitOk;
  }
  for (const interp::NamedFile& f : options.outputs) {
    const size_t j = static_cast<size_t>(indexOf(plan->outputs, f.name));
    try {
      interp::writeNpy(f.file, results[j], plan->outputs[j].dtype);
    } catch (const interp::NpyError& e) {
      return fail(e.what(), interp::kExitFailed);
    }
  }
  return interp::kExitOk;
}

}  // namespace mirage::backend
