// Measurements of the search for mirage-bench: one search per program with
// the built-in verifier and ranking, as the driver runs it.
#pragma once

#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::search {

struct SearchMeasurement {
  std::string name;
  double value = 0;
  std::string unit;
};

// Runs the search on `program` for at most `seconds` on `jobs` threads and
// reports: seconds to the first verified μGraph and to the best, the best's
// and the fewest kernel launches found, states explored and pruned,
// candidates verified. Names are prefixed with `label`.
std::vector<SearchMeasurement> measureSearch(const std::string& label, const ir::Graph& program,
                                             double seconds, int jobs);

}  // namespace mirage::search
