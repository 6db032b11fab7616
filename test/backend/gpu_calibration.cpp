// On a machine with a GPU: generates, compiles, checks and times every bundled
// example, and prints the measured time next to the cost model's prediction
// (the calibration table of docs/cost-model.md), the empty-launch time and
// each program's fraction of the device-memory bound. Without a GPU it says
// why and succeeds, so it can run in every test suite. Exit status 1 when a
// compile, a check against the interpreter or a timing fails.
#include <cstdio>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "mirage/backend/cost_model.h"
#include "mirage/backend/gpu.h"
#include "mirage/backend/gpu_check.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/codegen/cuda.h"
#include "mirage/parse/parser.h"

using namespace mirage;

int main(int argc, char** argv) {
  const std::string examples = argc > 1 ? argv[1] : MIRAGE_EXAMPLES_DIR;
  std::string why;
  std::unique_ptr<backend::Gpu> gpu = backend::Gpu::open(&why);
  if (!gpu) {
    fmt::print("{}; nothing to calibrate\n", why);
    return 0;
  }
  const backend::DeviceProps& p = gpu->props();
  const backend::ArchSpec arch = gpu->archSpec();
  fmt::print("device: {} ({}, {} SMs, {:.0f} GB/s peak, L2 {} MiB, driver {})\n", p.name, p.archString(),
             p.numSMs, arch.dramBandwidthGBs, p.l2Bytes >> 20, p.driverVersion);
  backend::Compiler compiler;
  backend::TimingResult empty = gpu->timeEmptyLaunch(compiler);
  if (!empty.ok) {
    fmt::print("empty launch: {}\n", empty.error);
    return 1;
  }
  fmt::print("empty launch: {:.2f} us (median of {})\n\n", empty.medianUs, empty.runs);
  fmt::print("{:<26} {:>7} {:>11} {:>11} {:>8} {:>10} {:>9} {:>10}\n", "program", "kernels", "predicted",
             "measured", "error", "bound", "of bound", "us/launch");
  int failures = 0;
  for (const char* name : {"gqa.mg", "qknorm_gqa.mg", "rmsnorm_linear.mg", "lora.mg", "gated_mlp.mg",
                           "ntrans.mg", "gqa_flash.mg", "rmsnorm_linear_fused.mg"}) {
    std::ostringstream err;
    std::optional<ir::Graph> g = parse::parseFile(examples + "/" + name, err);
    if (!g) {
      fmt::print("{:<26} cannot parse: {}\n", name, err.str());
      ++failures;
      continue;
    }
    codegen::Options options;
    options.smArch = p.smArch;
    options.sourceName = name;
    codegen::Result cu = codegen::generateCuda(*g, options);
    std::string planError;
    std::optional<backend::LaunchPlan> plan;
    if (cu.ok) plan = backend::parseLaunchPlan(cu.source, &planError);
    if (!cu.ok || !plan) {
      fmt::print("{:<26} {}\n", name, cu.ok ? "launch plan: " + planError : "codegen: " + cu.error);
      ++failures;
      continue;
    }
    backend::CompileRequest request;
    request.source = cu.source;
    request.arch = p.archString();
    request.label = name;
    backend::CompileResult binary = compiler.compile(request);
    if (!binary.ok) {
      fmt::print("{:<26} {}\n{}\n", name, binary.error, binary.log);
      ++failures;
      continue;
    }
    backend::GpuCheckResult check = backend::checkAgainstInterpreter(*gpu, *plan, binary, *g, 1);
    if (!check.ok) {
      fmt::print("{:<26} wrong on the GPU: {}\n", name, check.error);
      ++failures;
      continue;
    }
    backend::TimingResult t = gpu->time(*plan, binary);
    const double predicted = backend::estimateCost(*g, arch).totalUs;
    if (!t.ok) {
      fmt::print("{:<26} timing: {}\n", name, t.error);
      ++failures;
      continue;
    }
    const size_t launches = plan->launches.size();
    fmt::print("{:<26} {:>7} {:>8.2f} us {:>8.2f} us {:>7.0f}% {:>7.2f} us {:>8.0f}% {:>10.2f}\n", name, launches,
               predicted, t.medianUs, 100.0 * (predicted - t.medianUs) / t.medianUs, t.boundUs,
               100.0 * t.boundUs / t.medianUs, t.medianUs / static_cast<double>(launches));
  }
  return failures == 0 ? 0 : 1;
}
