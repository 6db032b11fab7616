// mirage-bench's search section: the search exactly as mirage-opt runs it
// (runMirageOpt with --device none --no-cache: the backend's cost model and
// its lower bounds, the same limits and default stop), read back from the
// run's --report. And its numerics section: the check mirage-opt runs on a
// candidate before it may choose it (numerics.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::driver {

struct SearchBenchRow {
  std::string program;
  bool ok = false;         // mirage-opt succeeded and wrote its report
  double secondsToFirst = -1;
  double secondsToBest = -1;
  double seconds = 0;      // the search's own time (to completion, or to the limit)
  double wallSeconds = 0;  // the whole mirage-opt run (numerics check, lowering, writing included)
  bool complete = false;
  std::string endedBy;     // "exhausted", "bound" or "time_limit"
  int64_t states = 0, pruned = 0, prunedByBound = 0, itemsPrunedByBound = 0, verified = 0;
  int bestKernels = 0;
  double bestUs = 0;
};

// One mirage-opt run on `path`; `timeLimitSeconds` 0 = mirage-opt's default
// (until complete, under its ceiling); `jobs` 0 = all cores.
SearchBenchRow benchSearch(const std::string& label, const std::string& path, double timeLimitSeconds, int jobs);

// The rows as a Markdown table (docs/search.md, "Measured").
std::string formatSearchBench(const std::vector<SearchBenchRow>& rows);

// Wall time of the numerics check of `candidate` against `input` on
// `threads` threads (0: all cores): the first check, which also computes the
// input's own results and its float64 reference, and a second one on the
// same NumericsCheck (what each later candidate costs), best of `repeats`.
struct NumericsBench {
  double firstSeconds = 0;
  double candidateSeconds = 0;
  bool passed = false;
};
NumericsBench benchNumerics(const ir::Graph& input, const ir::Graph& candidate, int threads, int repeats);

}  // namespace mirage::driver
