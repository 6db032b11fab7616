// mirage-opt on a program above the regions threshold (21+ operators): it is
// searched by regions, the report says how many and their times, the chosen
// program has fewer launches than the input, and a second run with the same
// cache directory takes every region from the cache (content-addressed:
// equal regions share one entry).
#include <catch2/catch.hpp>

#include <cstdio>

#include "mirage/driver/driver.h"
#include "test_util.h"

using mirage::driver::Options;

namespace {

// Five RMSNorm+Linear blocks in a row (25 operators): the rows of every
// block's output are reduced whole by the next RMSNorm, 4 rows, so each
// block is a region of its own; the blocks are equal, so one region text.
std::string chain() {
  std::string s = "graph chain {\n  X = input f16[4, 64]\n";
  for (int k = 1; k <= 5; ++k) s += "  W" + std::to_string(k) + " = input f16[64, 64]\n";
  std::string x = "X";
  for (int k = 1; k <= 5; ++k) {
    std::string y = k == 5 ? "Y" : "Y" + std::to_string(k);
    s += "  " + y + " = matmul(rms_norm(" + x + "), W" + std::to_string(k) + ")\n";
    x = y;
  }
  return s + "  output Y\n}\n";
}

// mirage-opt on `input` without a GPU or a cache, its report at `report`.
Options uncachedRun(const std::filesystem::path& input, const std::filesystem::path& report) {
  Options o;
  o.input = input.string();
  o.device = "none";
  o.jobs = 2;
  o.verbosity = -1;
  o.noCache = true;
  o.report = report.string();
  return o;
}

}  // namespace

TEST_CASE("a program above the threshold is searched by regions, and its regions come from the cache next time",
          "[driver][regions]") {
  auto dir = test::tempDir("regions");
  test::writeFile(dir / "chain.mg", chain());
  Options o;
  o.input = (dir / "chain.mg").string();
  o.device = "none";
  o.jobs = 2;
  o.verbosity = -1;
  o.cacheDir = (dir / "cache").string();
  o.output = (dir / "chain.cu").string();
  o.report = (dir / "r.json").string();
  auto first = test::runDriver(o);
  INFO(first.err);
  REQUIRE(first.status == 0);
  auto j = nlohmann::json::parse(test::readFile(dir / "r.json"));
  REQUIRE(j.contains("regions"));
  const auto& g = j["regions"];
  CHECK(g["count"] == 5);
  CHECK(g["cuts"] == nlohmann::json::array({5, 10, 15, 20}));
  CHECK(g["regions"].size() == 5);
  CHECK(g["regions"][1]["repeat_of_earlier_region"] == true);
  CHECK(j["best"]["kernels"] == 5);  // one fused RMSNorm+Linear kernel per block; the input has 25
  CHECK(j["candidates"].size() == 2);
  CHECK(j["candidates"][1]["origin"] == "regions: 5 stitched");
  std::string how = g["verification"];
  CHECK((how == "verified whole" || how.rfind("proven region by region", 0) == 0));
  // cli.md's three endings only, also when a region was cut by the driver's
  // quiet rule (reported as "time_limit", the run then incomplete).
  std::string ended = j["search"]["ended_by"];
  CHECK((ended == "exhausted" || ended == "bound" || ended == "time_limit"));
  CHECK(j["search"]["complete"] == (ended != "time_limit"));
  std::printf("regions: first run %.2f s (%s), ", first.seconds, how.c_str());

  auto second = test::runDriver(o);
  REQUIRE(second.status == 0);
  auto j2 = nlohmann::json::parse(test::readFile(dir / "r.json"));
  // Every region text (the first partition's one, and the moved cuts') came
  // from the cache.
  CHECK(j2["regions"]["cache_hits"] >= 1);
  CHECK(j2["regions"]["cache_hits"] == j2["regions"]["region_searches"]);
  CHECK(j2["regions"]["region_searches"] == g["region_searches"]);
  CHECK(j2["best"]["kernels"] == 5);
  std::printf("second %.2f s\n", second.seconds);
}

TEST_CASE("a small program that falls apart is searched by its parts, merged where a launch is saved",
          "[driver][regions]") {
  // Five reductions of one input. Searched whole, no plan is found in a
  // minute: a grouped sum (size=2) fuses with no other reduction, and the
  // whole search's candidates have custom kernels only. By parts, each is
  // one launch; merging neighbours fuses the first three into one kernel
  // (2 merges kept); merging the grouped sum in, seeded with the stitched
  // pair of bests, ends at once (nothing beats the seed); the last merge
  // saves nothing either. 3 launches instead of 5, and the search ends.
  auto dir = test::tempDir("parts");
  test::writeFile(dir / "r.mg", R"(graph reductions {
  A = input f32[2, 4, 2]
  S1 = reduce_sum(A, dim=1)
  M2 = reduce_mean(A, dim=-1)
  X0 = reduce_max(A, dim=0)
  SZ = reduce_sum(A, dim=-2, size=2)
  MX = reduce_max(A, dim=-2)
  output S1, M2, X0, SZ, MX
}
)");
  auto run = test::runDriver(uncachedRun(dir / "r.mg", dir / "r.json"));
  INFO(run.err);
  REQUIRE(run.status == 0);
  auto j = nlohmann::json::parse(test::readFile(dir / "r.json"));
  REQUIRE(j.contains("regions"));
  CHECK(j["regions"]["initial_cuts"] == nlohmann::json::array({1, 2, 3, 4}));
  CHECK(j["regions"]["merges_tried"] == 4);
  CHECK(j["regions"]["merges_kept"] == 2);
  CHECK(j["regions"]["cuts"] == nlohmann::json::array({3, 4}));
  CHECK(j["best"]["kernels"] == 3);
  CHECK(j["search"]["complete"] == true);
  CHECK(j["search"]["ended_by"] != "time_limit");
  CHECK(run.seconds < 30);
}

TEST_CASE("a custom kernel of a small program is a part of its own, and the rest still fuses", "[driver][regions]") {
  // Searched whole, no plan can equal Z (a custom kernel's result is opaque
  // to the search), so nothing would fuse and the input's 4 launches would
  // stay; by parts, the element-wise chain is one kernel and Z is kept.
  auto dir = test::tempDir("kernelpart");
  test::writeFile(dir / "k.mg", R"(graph k {
  A = input f16[4, 64]
  t = tanh(A)
  u = mul(t, 2)
  v = sigmoid(u)
  Z = kernel(A) grid=[4] {
    x = tile(A, imap={x:0})
    save(accum(exp(x)), Z, omap={x:0})
  }
  output v, Z
}
)");
  auto run = test::runDriver(uncachedRun(dir / "k.mg", dir / "k.json"));
  INFO(run.err);
  REQUIRE(run.status == 0);
  auto j = nlohmann::json::parse(test::readFile(dir / "k.json"));
  REQUIRE(j.contains("regions"));
  CHECK(j["regions"]["cuts"] == nlohmann::json::array({3}));
  CHECK(j["best"]["kernels"] == 2);
  CHECK(j["search"]["complete"] == true);
}
