// The real CandidateTimer: backend::Gpu + NVRTC + the interpreter's reference.
#include "mirage/driver/gpu_timer.h"

#include <fmt/format.h>

#include "mirage/backend/gpu.h"
#include "mirage/backend/gpu_check.h"
#include "mirage/backend/launch_plan.h"

namespace mirage::driver {
namespace {

class GpuTimer final : public CandidateTimer {
 public:
  GpuTimer(std::unique_ptr<backend::Gpu> gpu, uint64_t seed) : gpu_(std::move(gpu)), seed_(seed) {}

  std::string deviceName() const override { return gpu_->props().name; }
  std::string arch() const override { return gpu_->props().archString(); }
  backend::ArchSpec archSpec() const override { return gpu_->archSpec(); }

  double emptyLaunchUs() override {
    if (!emptyMeasured_) {
      emptyMeasured_ = true;
      backend::TimingResult t = gpu_->timeEmptyLaunch(compiler_);
      emptyUs_ = t.ok ? t.medianUs : -1;
    }
    return emptyUs_;
  }

  CandidateTiming measure(const ir::Graph& program, const ir::Graph& candidate, const std::string& source,
                          const backend::CompileResult& binary) override {
    CandidateTiming m;
    std::string error;
    auto plan = backend::parseLaunchPlan(source, &error);
    if (!plan) {
      m.error = "plan: " + error;
      return m;
    }
    backend::CompileResult compiled = binary;
    if (!compiled.ok) {
      backend::CompileRequest request;
      request.source = source;
      request.arch = arch();
      request.label = "candidate";
      compiled = compiler_.compile(request);
      if (!compiled.ok) {
        m.error = "compile: " + compiled.error;
        return m;
      }
    }
    // The interpreter runs once per program, however many candidates.
    if (referenceOf_ != &program) {
      reference_ = backend::makeCheckReference(program, seed_);
      referenceOf_ = &program;
    }
    backend::GpuCheckResult check = backend::checkCandidate(*gpu_, *plan, compiled, reference_, candidate, seed_);
    m.maxAbsError = check.maxAbsError;
    m.checkedAgainstOwnGraph = check.againstOwnGraph;
    m.inputDiffers = check.inputDiffers;
    if (!check.ok) {
      m.error = "check: " + check.error;
      m.deviceLost = gpu_->lost();
      return m;
    }
    m.checked = true;
    backend::TimingResult t = gpu_->time(*plan, compiled);
    m.boundUs = t.boundUs;
    m.runs = t.runs;
    if (!t.ok) {
      m.error = "timing: " + t.error;
      m.deviceLost = gpu_->lost();
      return m;
    }
    m.timed = true;
    m.medianUs = t.medianUs;
    m.minUs = t.minUs;
    return m;
  }

 private:
  std::unique_ptr<backend::Gpu> gpu_;
  uint64_t seed_;
  backend::Compiler compiler_;
  const ir::Graph* referenceOf_ = nullptr;
  backend::CheckReference reference_;
  bool emptyMeasured_ = false;
  double emptyUs_ = -1;
};

}  // namespace

std::unique_ptr<CandidateTimer> openGpuTimer(uint64_t seed, std::string* whyNot) {
  std::unique_ptr<backend::Gpu> gpu = backend::Gpu::open(whyNot);
  if (!gpu) return nullptr;
  return std::make_unique<GpuTimer>(std::move(gpu), seed);
}

}  // namespace mirage::driver
