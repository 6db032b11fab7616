// The mirage-opt pipeline: options, exit codes, outputs, time limit, seed,
// cache.
#include <catch2/catch.hpp>

#include <cstdio>
#include <algorithm>
#include <atomic>
#include <thread>

#include "mirage/backend/nvrtc.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/verifier.h"
#include "test_util.h"

using mirage::driver::Options;
using test::readFile;
using test::runDriver;
using test::tempDir;

namespace {

const char* kGatedMlp =
    "graph mlp {\n  X = input f16[4, 64]\n  W1 = input f16[64, 32]\n  W2 = input f16[64, 32]\n"
    "  O = mul(silu(matmul(X, W1)), matmul(X, W2))\n  output O\n}\n";

Options base(const std::filesystem::path& dir, const std::string& input) {
  Options o;
  o.input = input;
  o.device = "none";
  o.jobs = 2;
  o.verbosity = -1;
  o.cacheDir = (dir / "cache").string();
  return o;
}

}  // namespace

TEST_CASE("exit status 2 when nothing is to be written", "[driver]") {
  auto dir = tempDir("nothing");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  auto r = runDriver(o);
  CHECK(r.status == 2);
  CHECK(r.err.find("nothing to write") != std::string::npos);
}

TEST_CASE("a rejected input gives exit status 1 and leaves outputs alone", "[driver]") {
  auto dir = tempDir("bad");
  test::writeFile(dir / "bad.mg", "graph g {\n  X = input f16[4, 8]\n  Y = matmul(X, X)\n  output Y\n}\n");
  test::writeFile(dir / "out.cu", "previous");
  Options o = base(dir, (dir / "bad.mg").string());
  o.output = (dir / "out.cu").string();
  auto r = runDriver(o);
  CHECK(r.status == 1);
  CHECK(r.err.find("bad.mg:3:") != std::string::npos);
  CHECK(readFile(dir / "out.cu") == "previous");
}

TEST_CASE("with --no-search the input is lowered as given", "[driver]") {
  auto dir = tempDir("nosearch");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.noSearch = true;
  o.output = (dir / "p.cu").string();
  o.report = (dir / "r.json").string();
  auto r = runDriver(o);
  REQUIRE(r.status == 0);
  CHECK(readFile(dir / "p.cu").find("mirage_mlp") != std::string::npos);
  auto j = nlohmann::json::parse(readFile(dir / "r.json"));
  CHECK(j["best"]["id"] == 0);
  CHECK(j["candidates"].size() == 1);
  CHECK(j["candidates"][0]["kernels"] == 4);
}

TEST_CASE("outputs: .cu, .mg, report and dumped candidates", "[driver]") {
  auto dir = tempDir("outputs");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.output = (dir / "p.cu").string();
  o.emitMg = (dir / "p.opt.mg").string();
  o.report = (dir / "r.json").string();
  o.dumpDir = (dir / "cands").string();
  o.timeLimitSeconds = 8;
  o.noCache = true;
  auto r = runDriver(o);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(readFile(dir / "r.json"));
  for (const char* key : {"states", "pruned", "verified", "seconds", "seconds_to_best", "complete", "ended_by",
                          "pruned_by_bound", "items_pruned_by_bound", "item_runs", "items_cut", "items_extended"})
    CHECK(j["search"].contains(key));
  CHECK(j["search"]["bound_violations"] == 0);
  // A small program: the search is complete well within 8 s.
  CHECK(j["search"]["complete"] == true);
  CHECK((j["search"]["ended_by"] == "bound" || j["search"]["ended_by"] == "exhausted"));
  REQUIRE(j["candidates"].size() >= 2);
  for (const auto& c : j["candidates"])
    for (const char* key : {"id", "kernels", "verified", "compiled", "predicted_us"}) CHECK(c.contains(key));
  CHECK(j["best"].contains("reason"));
  CHECK(j["best"]["kernels"] == 1);
  // The emitted μGraph reads back, keeps the names, and is the best one.
  std::ostringstream diag;
  auto back = mirage::parse::parseFile((dir / "p.opt.mg").string(), diag);
  REQUIRE(back);
  CHECK(back->name == "mlp");
  CHECK(mirage::ir::countKernels(*back) == 1);
  CHECK(back->value(back->outputs[0]).name == "O");
  CHECK(readFile(dir / "p.cu").find("mirage_mlp_workspace_bytes") != std::string::npos);
  auto summary = nlohmann::json::parse(readFile(dir / "cands" / "summary.json"));
  CHECK(summary.size() == j["candidates"].size());
  CHECK(std::filesystem::exists(dir / "cands" / "001.cu"));
  // Every dumped candidate reads back and is equivalent to the input.
  auto input = mirage::parse::parseFile((dir / "p.mg").string(), diag);
  REQUIRE(input);
  for (const auto& c : summary) {
    auto cand = mirage::parse::parseFile((dir / "cands" / c["mg"].get<std::string>()).string(), diag);
    REQUIRE(cand);
    CHECK(mirage::verify::checkEquivalent(*input, *cand).equivalent);
  }
}

// Tagged [serial]: CMakeLists runs it alone (RUN_SERIAL), as other tests
// competing for the 2 cores would measure the machine, not the limit.
TEST_CASE("a 2 s --time-limit on a large program ends within about 3 s with a valid output", "[driver][serial]") {
  auto dir = tempDir("limit");
  Options o = base(dir, std::string(MIRAGE_EXAMPLES_DIR) + "/qknorm_gqa.mg");
  o.output = (dir / "q.cu").string();
  o.report = (dir / "r.json").string();
  o.timeLimitSeconds = 2;
  o.noCache = true;
  auto r = runDriver(o);
  std::printf("--time-limit 2 run took %.2f s\n", r.seconds);
  std::fflush(stdout);
  CHECK(r.status == 0);
  CHECK(r.seconds < 3.5);
  CHECK(readFile(dir / "q.cu").find("mirage_qknorm_gqa(") != std::string::npos);
  auto j = nlohmann::json::parse(readFile(dir / "r.json"));
  CHECK(j["search"]["timed_out"] == true);
}

TEST_CASE("without --time-limit the run ends when the search is complete", "[driver]") {
  // cli.md: the space is explored, or no unexplored candidate can beat the
  // best by the cost model's lower bound; the report says which.
  auto dir = tempDir("complete");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.noCache = true;
  o.report = (dir / "r.json").string();
  auto r = runDriver(o);
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(readFile(dir / "r.json"));
  CHECK(j["search"]["complete"] == true);
  CHECK(j["search"]["timed_out"] == false);
  CHECK(j["search"]["ended_by"] == "bound");
  CHECK(j["search"]["pruned_by_bound"].get<int64_t>() + j["search"]["items_pruned_by_bound"].get<int64_t>() > 0);
  CHECK(j["search"]["seconds"].get<double>() < 30);  // far below the 60 s ceiling
  CHECK(j["best"]["kernels"] == 1);
}

TEST_CASE("a search stopped by --time-limit says so", "[driver]") {
  // NTrans: a space the bound cannot close in a second (docs/search.md).
  auto dir = tempDir("stopped");
  Options o = base(dir, std::string(MIRAGE_EXAMPLES_DIR) + "/ntrans.mg");
  o.noCache = true;
  o.report = (dir / "r.json").string();
  o.timeLimitSeconds = 1;
  REQUIRE(runDriver(o).status == 0);
  auto j = nlohmann::json::parse(readFile(dir / "r.json"));
  CHECK(j["search"]["timed_out"] == true);
  CHECK(j["search"]["complete"] == false);
  CHECK(j["search"]["ended_by"] == "time_limit");
}

TEST_CASE("a --seed makes a run reproducible", "[driver]") {
  auto dir = tempDir("seed");
  test::writeFile(dir / "p.mg", kGatedMlp);
  auto once = [&](const std::string& tag) {
    Options o = base(dir, (dir / "p.mg").string());
    o.seed = 7;
    o.noCache = true;
    o.limits.maxKernels = 1;
    o.limits.maxBlockOps = 7;
    o.limits.maxDiscrepancies = 2;
    o.timeLimitSeconds = 60;
    o.emitMg = (dir / (tag + ".mg")).string();
    o.dumpDir = (dir / tag).string();
    REQUIRE(runDriver(o).status == 0);
    auto summary = nlohmann::json::parse(readFile(dir / tag / "summary.json"));
    std::string all;
    for (const auto& c : summary) all += readFile(dir / tag / c["mg"].get<std::string>());
    return std::make_pair(readFile(dir / (tag + ".mg")), all);
  };
  auto a = once("a");
  auto b = once("b");
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
}

TEST_CASE("the result cache makes a second run a hit", "[driver]") {
  auto dir = tempDir("cache");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.timeLimitSeconds = 6;
  o.emitMg = (dir / "first.mg").string();
  o.report = (dir / "first.json").string();
  REQUIRE(runDriver(o).status == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "first.json"))["cache"] == "miss");
  o.emitMg = (dir / "second.mg").string();
  o.report = (dir / "second.json").string();
  auto r = runDriver(o);
  REQUIRE(r.status == 0);
  CHECK(r.seconds < 2);
  CHECK(nlohmann::json::parse(readFile(dir / "second.json"))["cache"] == "hit");
  CHECK(readFile(dir / "first.mg") == readFile(dir / "second.mg"));
  // A different limit is a different key; --no-cache neither reads nor writes.
  o.noCache = true;
  o.report = (dir / "third.json").string();
  REQUIRE(runDriver(o).status == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "third.json"))["cache"] == "off");
}

TEST_CASE("a cache entry whose candidate is wrong is verified again, rejected and searched anew", "[driver]") {
  auto dir = tempDir("cache-tampered");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.limits.maxKernels = 1;  // an exhaustive search of a fraction of a second
  o.timeLimitSeconds = 20;
  o.report = (dir / "first.json").string();
  REQUIRE(runDriver(o).status == 0);
  // Tamper with the stored candidates: silu becomes relu (legal, but a
  // different program) in every one of them.
  std::filesystem::path entry;
  for (const auto& e : std::filesystem::directory_iterator(dir / "cache")) entry = e.path();
  REQUIRE(!entry.empty());
  auto j = nlohmann::json::parse(readFile(entry));
  int changed = 0;
  for (auto& c : j["candidates"]) {
    std::string mg = c["mg"].get<std::string>();
    for (size_t at = mg.find("silu"); at != std::string::npos; at = mg.find("silu", at)) {
      mg.replace(at, 4, "relu");
      ++changed;
    }
    c["mg"] = mg;
  }
  REQUIRE(changed > 0);
  test::writeFile(entry, j.dump());
  o.verbosity = 0;
  o.emitMg = (dir / "second.mg").string();
  o.report = (dir / "second.json").string();
  auto r = runDriver(o);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("ignoring a cache entry whose candidate 0 is not equivalent to the input") != std::string::npos);
  CHECK(nlohmann::json::parse(readFile(dir / "second.json"))["cache"] == "miss");
  std::ostringstream diag;
  auto input = mirage::parse::parseFile((dir / "p.mg").string(), diag);
  auto written = mirage::parse::parseFile((dir / "second.mg").string(), diag);
  REQUIRE(input);
  REQUIRE(written);
  CHECK(mirage::verify::checkEquivalent(*input, *written).equivalent);
}

TEST_CASE("NVRTC binaries are kept in the cache directory, and none without the cache", "[driver]") {
  if (!mirage::backend::Compiler::available()) return;  // a build without NVRTC compiles nothing
  auto dir = test::tempDir("nvrtc-cache");
  test::writeFile(dir / "p.mg", kGatedMlp);
  Options o = base(dir, (dir / "p.mg").string());
  o.noSearch = true;
  o.output = (dir / "p.cu").string();
  REQUIRE(runDriver(o).status == 0);
  auto nvrtcDir = dir / "cache" / "nvrtc";
  REQUIRE(std::filesystem::is_directory(nvrtcDir));
  CHECK(std::distance(std::filesystem::directory_iterator(nvrtcDir), std::filesystem::directory_iterator()) >= 1);

  std::filesystem::remove_all(dir / "cache");
  o.noCache = true;
  REQUIRE(runDriver(o).status == 0);
  CHECK(!std::filesystem::exists(dir / "cache"));
}

TEST_CASE("concurrent atomic writes of one file leave one writer's text whole and no temporary file", "[driver]") {
  auto dir = tempDir("atomic");
  auto path = (dir / "entry.json").string();
  std::vector<std::string> texts;
  for (int t = 0; t < 6; ++t) texts.push_back(std::string(100000 + 1000 * t, static_cast<char>('a' + t)));
  std::vector<std::thread> writers;
  std::atomic<int> errors{0};
  for (int t = 0; t < 6; ++t)
    writers.emplace_back([&, t] {
      for (int k = 0; k < 40; ++k)
        if (!mirage::driver::writeFileAtomically(path, texts[static_cast<size_t>(t)]).empty()) ++errors;
    });
  // A reader meanwhile only ever sees some writer's whole text.
  int torn = 0;
  for (int k = 0; k < 200; ++k) {
    std::string seen = readFile(path);
    if (!seen.empty() && std::find(texts.begin(), texts.end(), seen) == texts.end()) ++torn;
  }
  for (auto& w : writers) w.join();
  CHECK(errors == 0);
  CHECK(torn == 0);
  CHECK(std::find(texts.begin(), texts.end(), readFile(path)) != texts.end());
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("the cache key is the program's content: another graph name or intermediate names hit the same entry",
          "[driver]") {
  auto dir = tempDir("cache-content");
  auto layer = [](const std::string& name, const std::string& mid, const std::string& x) {
    return "graph " + name + " {\n  " + x + " = input f16[4, 64]\n  W1 = input f16[64, 32]\n  W2 = input f16[64, 32]\n  " +
           mid + " = matmul(" + x + ", W1)\n  O = mul(silu(" + mid + "), matmul(" + x + ", W2))\n  output O\n}\n";
  };
  test::writeFile(dir / "layer0.mg", layer("layer0", "H", "X"));
  test::writeFile(dir / "layer17.mg", layer("layer17", "gate", "X"));
  test::writeFile(dir / "other.mg", layer("layer0", "H", "Y"));  // an input renamed: another interface
  Options o = base(dir, (dir / "layer0.mg").string());
  o.limits.maxKernels = 1;
  o.timeLimitSeconds = 20;
  o.report = (dir / "0.json").string();
  REQUIRE(runDriver(o).status == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "0.json"))["cache"] == "miss");
  o.input = (dir / "layer17.mg").string();
  o.report = (dir / "17.json").string();
  o.emitMg = (dir / "17.out.mg").string();
  REQUIRE(runDriver(o).status == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "17.json"))["cache"] == "hit");
  CHECK(readFile(dir / "17.out.mg").find("graph layer17 {") != std::string::npos);  // its own name
  o.input = (dir / "other.mg").string();
  o.report = (dir / "other.json").string();
  o.emitMg.clear();
  REQUIRE(runDriver(o).status == 0);
  CHECK(nlohmann::json::parse(readFile(dir / "other.json"))["cache"] == "miss");
}
