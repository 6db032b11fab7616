// mirage-bench's search section (see search/bench.h).
#include "mirage/search/bench.h"

#include <algorithm>
#include <thread>

#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"

namespace mirage::search {

std::vector<SearchMeasurement> measureSearch(const std::string& label, const ir::Graph& program,
                                             double seconds, int jobs) {
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  verify::Options vopt;
  vopt.threads = jobs;
  verify::Verifier verifier(program, vopt);
  Options o;
  o.timeLimitSeconds = seconds;
  o.jobs = jobs;
  Result r = runSearch(program, verifier, o);
  int fewest = r.candidates.front().kernels;
  for (const Candidate& c : r.candidates) fewest = std::min(fewest, c.kernels);
  const Candidate& best = r.candidates[static_cast<size_t>(r.best)];
  const Stats& s = r.stats;
  auto m = [&](const std::string& what, double v, const std::string& unit) {
    return SearchMeasurement{label + ": " + what, v, unit};
  };
  return {m("seconds to first verified μGraph", s.secondsToFirst, "s"),
          m("seconds to best", s.secondsToBest, "s"),
          m("fewest kernel launches found", fewest, "kernels"),
          m("best candidate's kernel launches", best.kernels, "kernels"),
          m("best candidate's predicted time", best.cost, "us"),
          m("states explored", static_cast<double>(s.states), "states"),
          m("extensions pruned", static_cast<double>(s.pruned), "extensions"),
          m("candidates verified", static_cast<double>(s.verified), "candidates"),
          m("search time", s.seconds, "s")};
}

}  // namespace mirage::search
