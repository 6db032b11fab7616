// mirage-opt with the numerics check in the pipeline: among verified
// candidates the cheapest predicted one overflows f16 at large logits
// (examples/gqa_flash_unguarded.mg, softmax without its max) and must not be chosen;
// the written kernel is numerically safe. The candidates are put into the
// result cache, which the driver verifies again and then ranks, so the test
// does not depend on what the search finds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "mirage/driver/gpu_timer.h"
#include "mirage/driver/numerics.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "test_util.h"

using mirage::driver::Options;
using test::readFile;
using test::runDriver;
using test::tempDir;
using namespace mirage;

namespace {

ir::Graph load(const std::string& path) {
  std::ostringstream err;
  auto g = parse::parseFile(path, err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

// A GPU stand-in that times every candidate by its number of kernels (the
// fewer, the faster) and records which it was given.
class KernelCountGpu final : public driver::CandidateTimer {
 public:
  std::vector<int> measuredKernels;
  std::string deviceName() const override { return "Scripted H200"; }
  std::string arch() const override { return "sm_90"; }
  backend::ArchSpec archSpec() const override { return backend::h200Spec(); }
  double emptyLaunchUs() override { return 2.0; }
  driver::CandidateTiming measure(const ir::Graph&, const ir::Graph&, const std::string& source,
                                  const backend::CompileResult&) override {
    int kernels = test::launchesIn(source);
    measuredKernels.push_back(kernels);
    driver::CandidateTiming t;
    t.checked = t.timed = true;
    t.medianUs = t.minUs = 10.0 * kernels;
    t.boundUs = 0.5;
    t.runs = 10;
    return t;
  }
};

// Runs mirage-opt on gqa.mg once (a search that ends at once, to create the
// cache entry), then replaces the cached candidates with the input and the
// given μGraph files (path, origin). Returns the options for the second run.
Options cacheWithCandidates(const std::filesystem::path& dir, driver::CandidateTimer* gpu,
                            const std::vector<std::pair<std::string, std::string>>& candidates) {
  std::string gqa = std::string(MIRAGE_EXAMPLES_DIR) + "/gqa.mg";
  Options o;
  o.input = gqa;
  o.device = gpu ? "cuda" : "none";
  o.jobs = 2;
  o.verbosity = -1;
  o.cacheDir = (dir / "cache").string();
  // A search that ends at once (it finds nothing better than the input);
  // the time limit leaves room to verify the cached candidates again.
  o.limits.maxKernels = 1;
  o.limits.maxBlockOps = 3;
  o.limits.maxDiscrepancies = 1;
  o.timeLimitSeconds = 30;
  o.report = (dir / "first.json").string();
  std::ostringstream out, err;
  int status = gpu ? driver::runMirageOpt(o, out, err, gpu) : driver::runMirageOpt(o, out, err);
  INFO(err.str());
  REQUIRE(status == 0);
  std::filesystem::path entry;
  for (const auto& e : std::filesystem::directory_iterator(dir / "cache"))
    if (e.path().extension() == ".json") entry = e.path();
  REQUIRE(!entry.empty());
  auto j = nlohmann::json::parse(readFile(entry));
  j["candidates"] = nlohmann::json::array({{{"mg", ir::printGraph(load(gqa))}, {"origin", "input"}}});
  for (const auto& [path, origin] : candidates)
    j["candidates"].push_back({{"mg", ir::printGraph(load(path))}, {"origin", origin}});
  test::writeFile(entry, j.dump());
  return o;
}

// The input, the unguarded flash decoding (2 kernels, cheapest predicted)
// and the guarded three-kernel form.
Options cacheWithUnguardedCandidate(const std::filesystem::path& dir, driver::CandidateTimer* gpu) {
  return cacheWithCandidates(
      dir, gpu,
      {{std::string(MIRAGE_EXAMPLES_DIR) + "/gqa_flash_unguarded.mg", "test: exp(S) without the max"},
       {std::string(DRIVER_TEST_FILES) + "/gqa_guarded.mg", "test: exp(S - M)"}});
}

// The second run, over the cached candidates, on `gpu`: its report.
nlohmann::json secondRunOnGpu(const std::filesystem::path& dir, Options o, KernelCountGpu& gpu) {
  gpu.measuredKernels.clear();
  o.report = (dir / "second.json").string();
  std::ostringstream out, err;
  REQUIRE(driver::runMirageOpt(o, out, err, &gpu) == 0);
  INFO(err.str());
  auto rep = nlohmann::json::parse(readFile(dir / "second.json"));
  REQUIRE(rep["cache"] == "hit");
  return rep;
}

}  // namespace

TEST_CASE("with a GPU, a candidate the numerics check rejects is never measured", "[numerics]") {
  auto dir = tempDir("numerics-gpu");
  KernelCountGpu gpu;
  auto rep = secondRunOnGpu(dir, cacheWithUnguardedCandidate(dir, &gpu), gpu);
  // The 2-kernel form would be the fastest measured; it is never given to the GPU.
  CHECK(std::find(gpu.measuredKernels.begin(), gpu.measuredKernels.end(), 2) == gpu.measuredKernels.end());
  CHECK(std::find(gpu.measuredKernels.begin(), gpu.measuredKernels.end(), 3) != gpu.measuredKernels.end());
  CHECK(rep["search"]["rejected_numerics"] == 1);
  CHECK(rep["best"]["id"] == 2);
}

TEST_CASE("with a GPU, the input lowered is measured second, after the cheapest predicted", "[numerics]") {
  // Three correct candidates: the guarded three-kernel form (cheapest
  // predicted), the guarded flash decoding (2 kernels) and the input (8
  // kernels, the dearest). The input is the baseline: it comes second.
  auto dir = tempDir("gpu-order");
  KernelCountGpu gpu;
  Options o = cacheWithCandidates(
      dir, &gpu,
      {{std::string(MIRAGE_EXAMPLES_DIR) + "/gqa_flash.mg", "test: flash decoding"},
       {std::string(DRIVER_TEST_FILES) + "/gqa_guarded.mg", "test: exp(S - M)"}});
  auto rep = secondRunOnGpu(dir, o, gpu);
  CHECK(gpu.measuredKernels == std::vector<int>{3, 8, 2});
  CHECK(rep["best"]["kernels"] == 2);
}

TEST_CASE("mirage-opt never chooses a candidate that the numerics check rejects", "[numerics]") {
  auto dir = tempDir("numerics");
  Options o = cacheWithUnguardedCandidate(dir, nullptr);
  ir::Graph input = load(o.input);
  o.verbosity = 0;
  o.report = (dir / "second.json").string();
  o.emitMg = (dir / "best.mg").string();
  auto r = runDriver(o);
  INFO(r.err);
  REQUIRE(r.status == 0);
  auto rep = nlohmann::json::parse(readFile(dir / "second.json"));
  REQUIRE(rep["cache"] == "hit");
  CHECK(rep["search"]["rejected_numerics"] == 1);
  CHECK(rep["search"].contains("rejected_undefined"));
  CHECK(rep["search"].contains("rejected_unguarded"));
  REQUIRE(rep["candidates"].size() == 3);
  // The unguarded form is predicted cheapest, so it is checked first.
  CHECK(rep["candidates"][1]["predicted_us"].get<double>() < rep["candidates"][2]["predicted_us"].get<double>());
  const auto& bad = rep["candidates"][1]["numerics"];
  CHECK(bad["checked"] == true);
  CHECK(bad["passed"] == false);
  CHECK(bad["inf_or_nan"] == true);
  CHECK(bad["magnitudes"].size() >= 3);
  const auto& good = rep["candidates"][2]["numerics"];
  CHECK(good["passed"] == true);
  CHECK(good["largest_error"].get<double>() <= good["input_largest_error"].get<double>() * 4 + 4 * 0x1p-10);
  CHECK(rep["candidates"][0]["numerics"]["checked"] == false);
  CHECK(rep["best"]["id"] == 2);
  CHECK(r.err.find("candidate 1 rejected by the numerics check: it gives inf or NaN") != std::string::npos);

  // The written μGraph at logits near 60: finite, and within 2e-2 of the
  // float64 evaluation of the input relative to the output's largest value.
  ir::Graph best = load((dir / "best.mg").string());
  std::vector<driver::Magnitude> schedule = driver::magnitudeSchedule(ir::DType::F16);
  auto inputs = driver::numericsInputs(input, schedule[0], 0);
  auto got = interp::evaluate(best, inputs);
  auto ref = interp::evaluate64(input, inputs);
  CHECK(driver::relativeError(got[0], ref[0]) < 2e-2);
}

TEST_CASE("mirage-opt says when the input program itself is off at ordinary magnitudes", "[numerics]") {
  auto dir = tempDir("unsafe-input");
  test::writeFile(dir / "unsafe.mg", "graph unsafe {\n  X = input f16[4, 512]\n  Y = rms_norm(mul(X, 300))\n"
                                     "  output Y\n}\n");
  test::writeFile(dir / "plain.mg", "graph plain {\n  X = input f16[4, 512]\n  Y = rms_norm(X)\n  output Y\n}\n");
  for (auto [name, said] : {std::pair{"unsafe.mg", true}, std::pair{"plain.mg", false}}) {
    INFO(name);
    Options o;
    o.input = (dir / name).string();
    o.output = (dir / "out.cu").string();
    o.device = "none";
    o.jobs = 2;
    o.noCache = true;
    auto r = runDriver(o);
    INFO(r.err);
    REQUIRE(r.status == 0);
    const bool found = r.err.find("the input program itself is off by") != std::string::npos;
    CHECK(found == said);
    if (said) CHECK(r.err.find("on uniform inputs at") != std::string::npos);
  }
}

// [slow]: a real search. Whatever it finds, the written μGraph is safe at
// logits near 60 in f16: finite, and within 2e-2 of float64 relative to the
// output's largest value (issue 10's done criterion for f16).
TEST_CASE("mirage-opt writes a numerically safe kernel for f16 attention", "[slow][numerics]") {
  for (std::string path : {std::string(MIRAGE_EXAMPLES_DIR) + "/gqa.mg",
                           std::string(DRIVER_TEST_FILES) + "/../attention/prefill_transpose_k.mg"}) {
    INFO(path);
    auto dir = tempDir("numerics-e2e");
    Options o;
    o.input = path;
    o.device = "none";
    o.jobs = 2;
    o.verbosity = -1;
    o.noCache = true;
    o.timeLimitSeconds = 40;
    o.emitMg = (dir / "best.mg").string();
    o.report = (dir / "r.json").string();
    auto r = runDriver(o);
    INFO(r.err);
    REQUIRE(r.status == 0);
    auto rep = nlohmann::json::parse(readFile(dir / "r.json"));
    std::printf("%s: chose %d (%d kernels), %d rejected by the numerics check, in %.1f s\n", path.c_str(),
                rep["best"]["id"].get<int>(), rep["best"]["kernels"].get<int>(),
                rep["search"]["rejected_numerics"].get<int>(), r.seconds);
    ir::Graph input = load(path);
    ir::Graph best = load((dir / "best.mg").string());
    for (const auto& m : driver::magnitudeSchedule(input.dtype)) {
      auto inputs = driver::numericsInputs(input, m, 0);
      auto ref = interp::evaluate64(input, inputs);
      auto got = interp::evaluate(best, inputs);
      INFO(m.family->name << " " << m.level);
      if (std::string(m.family->name) == "uniform") CHECK(driver::relativeError(got[0], ref[0]) < 2e-2);
    }
  }
}
