// mirage-bench's search and numerics sections (see driver/bench.h).
#include "mirage/driver/bench.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <limits>
#include <algorithm>

#include "mirage/driver/driver.h"
#include "mirage/driver/numerics.h"
#include "run.h"

namespace mirage::driver {

SearchBenchRow benchSearch(const std::string& label, const std::string& path, double timeLimitSeconds, int jobs) {
  SearchBenchRow row;
  row.program = label;
  namespace fs = std::filesystem;
  const fs::path report =
      fs::temp_directory_path() / fmt::format("mirage-bench-{}-{}.json", label,
                                              std::chrono::steady_clock::now().time_since_epoch().count());
  Options o;
  o.input = path;
  o.report = report.string();
  o.device = "none";
  o.noCache = true;
  o.jobs = jobs;
  o.verbosity = -1;
  o.timeLimitSeconds = timeLimitSeconds;
  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  const int status = runMirageOpt(o, out, err);
  row.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream in(report);
  if (status != 0 || !in) return row;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  in.close();
  std::error_code ec;
  fs::remove(report, ec);
  if (j.is_discarded()) return row;
  const nlohmann::json& s = j["search"];
  row.ok = true;
  row.secondsToFirst = s.value("seconds_to_first", -1.0);
  row.secondsToBest = s.value("seconds_to_best", -1.0);
  row.seconds = s.value("seconds", 0.0);
  row.complete = s.value("complete", false);
  row.endedBy = s.value("ended_by", std::string());
  row.states = s.value("states", int64_t{0});
  row.pruned = s.value("pruned", int64_t{0});
  row.prunedByBound = s.value("pruned_by_bound", int64_t{0});
  row.itemsPrunedByBound = s.value("items_pruned_by_bound", int64_t{0});
  row.verified = s.value("verified", int64_t{0});
  if (j["best"].is_object()) {
    row.bestKernels = j["best"].value("kernels", 0);
    row.bestUs = j["best"].value("predicted_us", 0.0);
  }
  return row;
}

std::string formatSearchBench(const std::vector<SearchBenchRow>& rows) {
  auto secs = [](double s) { return s < 0 ? std::string("-") : fmt::format("{:.2f} s", s); };
  std::string t =
      "| program | first | best | search ends | ended by | states | pruned (expr) | pruned (bound) | verified | best |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const SearchBenchRow& r : rows) {
    if (!r.ok) {
      t += fmt::format("| {} | mirage-opt failed | | | | | | | | |\n", r.program);
      continue;
    }
    t += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} + {} items | {} | {} launch(es), {:.2f} us |\n",
                     r.program, secs(r.secondsToFirst), secs(r.secondsToBest), secs(r.seconds), r.endedBy,
                     r.states, r.pruned, r.prunedByBound, r.itemsPrunedByBound, r.verified, r.bestKernels, r.bestUs);
  }
  return t;
}

NumericsBench benchNumerics(const ir::Graph& input, const ir::Graph& candidate, int threads, int repeats) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); };
  NumericsBench b;
  b.firstSeconds = b.candidateSeconds = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    NumericsCheck check(input, 0, jobsOrAllCores(threads));
    Clock::time_point start = Clock::now();
    b.passed = check.check(candidate).passed;
    b.firstSeconds = std::min(b.firstSeconds, seconds(start));
    start = Clock::now();
    check.check(candidate);
    b.candidateSeconds = std::min(b.candidateSeconds, seconds(start));
  }
  return b;
}

}  // namespace mirage::driver
