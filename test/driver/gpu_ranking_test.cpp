// Ranking on a GPU (--device auto|cuda): the driver measures candidates with
// a CandidateTimer and writes the fastest one the GPU computed correctly.
// These tests substitute a timer whose verdicts are set per kernel count, so
// the driver's decisions are checked without a GPU; the real timer is
// exercised through the stand-in libcuda (test/driver/CMakeLists.txt).
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "mirage/driver/gpu_timer.h"
#include "test_util.h"

using mirage::driver::CandidateTiming;
using mirage::driver::Options;
using test::readFile;
using test::tempDir;

namespace {

const char* kGatedMlp =
    "graph mlp {\n  X = input f16[4, 64]\n  W1 = input f16[64, 32]\n  W2 = input f16[64, 32]\n"
    "  O = mul(silu(matmul(X, W1)), matmul(X, W2))\n  output O\n}\n";

// Verdicts by the number of launches in the generated source.
class ScriptedGpu final : public mirage::driver::CandidateTimer {
 public:
  std::function<CandidateTiming(int kernels)> verdict;
  std::function<CandidateTiming(const std::string& source)> bySource;  // when set, instead
  int measured = 0;
  std::string deviceName() const override { return "Scripted H200"; }
  std::string arch() const override { return "sm_90"; }
  mirage::backend::ArchSpec archSpec() const override { return mirage::backend::h200Spec(); }
  double emptyLaunchUs() override { return 2.0; }
  CandidateTiming measure(const mirage::ir::Graph&, const mirage::ir::Graph&, const std::string& source,
                          const mirage::backend::CompileResult&) override {
    ++measured;
    return bySource ? bySource(source) : verdict(test::launchesIn(source));
  }
};

CandidateTiming timed(double us) {
  CandidateTiming t;
  t.checked = t.timed = true;
  t.medianUs = t.minUs = us;
  t.boundUs = 0.5;
  t.runs = 10;
  return t;
}

CandidateTiming wrong() {
  CandidateTiming t;
  t.error = "check: output O differs at [0, 3]: GPU 1, reference 0.5 (tolerance 0.01)";
  return t;
}

CandidateTiming untimed() {
  CandidateTiming t;
  t.checked = true;
  t.error = "timing: 0.1 us is below the physical bound";
  return t;
}

struct Fixture {
  std::filesystem::path dir = tempDir("gpu-ranking");
  Options opt;
  Fixture() {
    test::writeFile(dir / "p.mg", kGatedMlp);
    opt.input = (dir / "p.mg").string();
    opt.jobs = 2;
    opt.verbosity = -1;
    opt.seed = 5;
    // One-kernel μGraphs only: the search exhausts this space in a fraction
    // of a second, whatever the load, and finds the fused kernel.
    opt.limits.maxKernels = 1;
    opt.timeLimitSeconds = 20;
    opt.noCache = true;
    opt.output = (dir / "p.cu").string();
    opt.report = (dir / "r.json").string();
    opt.device = "auto";
  }
  int run(ScriptedGpu& gpu, std::string* err = nullptr) {
    std::filesystem::remove(dir / "p.cu");
    std::filesystem::remove(dir / "r.json");
    std::ostringstream out, e;
    int status = mirage::driver::runMirageOpt(opt, out, e, &gpu);
    if (err) *err = e.str();
    return status;
  }
  nlohmann::json report() const { return nlohmann::json::parse(readFile(dir / "r.json")); }
};

// The candidate of the report with this many kernels.
const nlohmann::json& withKernels(const nlohmann::json& report, int kernels) {
  for (const auto& c : report["candidates"])
    if (c["kernels"] == kernels) return c;
  FAIL("no candidate with " << kernels << " kernels");
  return report;
}

}  // namespace

TEST_CASE("on a GPU the fastest measured candidate wins over the model's choice", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  // The model prefers one fused kernel; this GPU says the 4-kernel input is faster.
  gpu.verdict = [](int kernels) { return timed(kernels == 1 ? 9.0 : 5.0); };
  REQUIRE(f.run(gpu) == 0);
  auto j = f.report();
  REQUIRE(j["candidates"].size() >= 2);
  CHECK(gpu.measured == static_cast<int>(j["candidates"].size()));
  CHECK(j["device"] == "Scripted H200");
  CHECK(j["gpu"]["name"] == "Scripted H200");
  CHECK(j["gpu"]["empty_launch_us"] == 2.0);
  CHECK(j["best"]["kernels"] == 4);
  CHECK(j["best"]["measured_us"] == 5.0);
  CHECK(j["best"]["reason"].get<std::string>().find("lowest measured time on Scripted H200") != std::string::npos);
  const auto& fused = withKernels(j, 1);
  CHECK(fused["measured_us"] == 9.0);
  CHECK(fused["gpu"]["checked"] == true);
  CHECK(fused["gpu"]["fraction_of_bandwidth_bound"] == Approx(0.5 / 9.0));
  CHECK(fused["gpu"]["per_launch_vs_empty_kernel"] == Approx(9.0 / 2.0));
  CHECK(withKernels(j, 4)["gpu"]["per_launch_vs_empty_kernel"] == Approx(5.0 / (4 * 2.0)));
  CHECK(test::launchesIn(readFile(f.dir / "p.cu")) == 4);
}

TEST_CASE("a candidate the GPU computes wrongly is never chosen, however fast", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  gpu.verdict = [](int kernels) {
    if (kernels == 1) {
      CandidateTiming t = wrong();
      t.medianUs = 0.1;  // a fast wrong answer
      return t;
    }
    return timed(7.0);
  };
  f.opt.verbosity = 0;
  std::string err;
  REQUIRE(f.run(gpu, &err) == 0);
  auto j = f.report();
  CHECK(j["best"]["kernels"] == 4);
  const auto& fused = withKernels(j, 1);
  CHECK_FALSE(fused.contains("measured_us"));
  CHECK(fused["gpu"]["checked"] == false);
  CHECK(fused["gpu"]["error"].get<std::string>().rfind("check: output O differs", 0) == 0);
  CHECK(err.find("failed on the GPU: check: output O differs") != std::string::npos);
}

TEST_CASE("when no candidate is right on the GPU nothing is written and the exit status is 1", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  gpu.verdict = [](int) { return wrong(); };
  std::string err;
  CHECK(f.run(gpu, &err) == 1);
  CHECK_FALSE(std::filesystem::exists(f.dir / "p.cu"));
  CHECK(err.find("error: no candidate ran and matched the reference on Scripted H200") != std::string::npos);
  CHECK(f.report()["best"].is_null());
}

TEST_CASE("when no timing can be trusted the model ranks the correct candidates", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  gpu.verdict = [](int kernels) { return kernels == 1 ? wrong() : untimed(); };
  REQUIRE(f.run(gpu) == 0);
  auto j = f.report();
  CHECK(j["best"]["kernels"] == 4);  // the only correct one
  CHECK_FALSE(j["best"].contains("measured_us"));
  CHECK(j["best"]["reason"].get<std::string>().find("no timing succeeded") != std::string::npos);
}

TEST_CASE("device none never measures, and another arch is ranked by the model", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  gpu.verdict = [](int) { return timed(1.0); };
  SECTION("--device none") {
    f.opt.device = "none";
    REQUIRE(f.run(gpu) == 0);
    CHECK(f.report()["device"] == "cost model");
  }
  SECTION("--arch sm_80 with --device auto") {
    f.opt.arch = "sm_80";
    std::string err;
    f.opt.verbosity = 0;
    REQUIRE(f.run(gpu, &err) == 0);
    CHECK(err.find("--arch sm_80 is not the GPU's sm_90: ranking with the cost model") != std::string::npos);
    CHECK(f.report()["arch"] == "sm_80");
  }
  SECTION("--arch sm_80 with --device cuda") {
    f.opt.arch = "sm_80";
    f.opt.device = "cuda";
    std::string err;
    CHECK(f.run(gpu, &err) == 1);
    CHECK(err.find("cannot time code for --arch sm_80") != std::string::npos);
  }
  CHECK(gpu.measured == 0);
}

TEST_CASE("on Hopper both code paths are measured without a time limit, and the faster correct one is written",
          "[driver][gpu]") {
  auto dir = tempDir("gpu-hopper");
  Options o;
  o.input = std::string(MIRAGE_EXAMPLES_DIR) + "/rmsnorm_linear_fused.mg";  // its loop tiles qualify for TMA
  o.noSearch = true;
  o.noCache = true;
  o.verbosity = 0;
  o.output = (dir / "k.cu").string();
  o.report = (dir / "r.json").string();
  auto isHopper = [](const std::string& source) { return source.find("cp.async.bulk") != std::string::npos; };
  ScriptedGpu gpu;
  std::string err;
  auto runForReport = [&] {
    std::ostringstream out, e;
    REQUIRE(mirage::driver::runMirageOpt(o, out, e, &gpu) == 0);
    err = e.str();
    return nlohmann::json::parse(readFile(dir / "r.json"));
  };
  SECTION("the Hopper path is faster") {
    gpu.bySource = [&](const std::string& source) { return timed(isHopper(source) ? 3.0 : 4.0); };
    auto j = runForReport();
    CHECK(gpu.measured == 2);
    CHECK(j["candidates"][0]["code_path"] == "hopper");
    CHECK(j["candidates"][0]["measured_us"] == 3.0);
    CHECK(j["candidates"][0]["gpu_other_code_path"]["median_us"] == 4.0);
    CHECK(j["gpu"]["cost_model"]["measured_candidates"] == 1);
    CHECK(isHopper(readFile(dir / "k.cu")));
  }
  SECTION("under a time limit only the sm_80 path is measured") {
    o.timeLimitSeconds = 30;
    gpu.bySource = [&](const std::string& source) { return timed(isHopper(source) ? 3.0 : 4.0); };
    auto j = runForReport();
    CHECK(gpu.measured == 1);
    CHECK(j["candidates"][0]["code_path"] == "sm_80");
    CHECK_FALSE(j["candidates"][0].contains("gpu_other_code_path"));
    CHECK_FALSE(isHopper(readFile(dir / "k.cu")));
  }
  SECTION("the Hopper path is wrong on the GPU") {
    gpu.bySource = [&](const std::string& source) { return isHopper(source) ? wrong() : timed(4.0); };
    auto j = runForReport();
    CHECK(err.find("the Hopper path failed on the GPU, keeping the sm_80 path") != std::string::npos);
    CHECK(j["candidates"][0]["code_path"] == "sm_80");
    CHECK(j["candidates"][0]["gpu_other_code_path"]["checked"] == false);
    CHECK_FALSE(isHopper(readFile(dir / "k.cu")));
  }
}

TEST_CASE("without a GPU the Hopper path is written only for --arch sm_90a", "[driver][gpu]") {
  auto dir = tempDir("hopper-arch");
  Options o;
  o.input = std::string(MIRAGE_EXAMPLES_DIR) + "/rmsnorm_linear_fused.mg";
  o.noSearch = true;
  o.noCache = true;
  o.device = "none";
  o.verbosity = -1;
  o.output = (dir / "k.cu").string();
  auto written = [&](const std::string& arch) {
    o.arch = arch;
    std::ostringstream out, err;
    REQUIRE(mirage::driver::runMirageOpt(o, out, err) == 0);
    return readFile(dir / "k.cu");
  };
  CHECK(written("sm_90a").find("cp.async.bulk") != std::string::npos);
  CHECK(written("sm_90").find("cp.async.bulk") == std::string::npos);
  CHECK(written("sm_80").find("cp.async.bulk") == std::string::npos);
}

TEST_CASE("after a kernel fault loses the GPU the rest are ranked by the model", "[driver][gpu]") {
  Fixture f;
  ScriptedGpu gpu;
  gpu.verdict = [](int kernels) {
    if (kernels != 1) return timed(1.0);  // never reached: the device is gone
    CandidateTiming t;
    t.error = "check: cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS";
    t.deviceLost = true;
    return t;
  };
  f.opt.verbosity = 0;
  std::string err;
  REQUIRE(f.run(gpu, &err) == 0);
  CHECK(gpu.measured == 1);
  CHECK(err.find("the GPU faulted on candidate") != std::string::npos);
  auto j = f.report();
  CHECK(j["best"]["kernels"] == 4);
  CHECK(j["best"]["reason"].get<std::string>().find("before the GPU was lost") != std::string::npos);
  CHECK(withKernels(j, 1)["gpu"]["checked"] == false);
}
