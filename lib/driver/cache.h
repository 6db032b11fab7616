// The result cache: verified candidates of a search, stored as JSON under a
// key that hashes the program's canonical printed text, the search limits,
// the target architecture and the tool version (never file times), so that a
// second run of the same program skips the search (its candidates are
// verified again on loading: the cache is never trusted blindly).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/search/search.h"

namespace mirage::driver {

struct CachedResult {
  std::vector<std::string> candidatesMg;  // printed μGraphs, in candidate order
  std::vector<std::string> origins;
  search::Stats stats;
};

std::string cacheKey(const ir::Graph& program, const search::Limits& limits, const std::string& arch);

// nullopt when absent or unreadable (a damaged entry is ignored, never trusted).
std::optional<CachedResult> loadCache(const std::string& dir, const std::string& key);

// Best effort: returns an error message, empty on success.
std::string storeCache(const std::string& dir, const std::string& key, const search::Result& result);

}  // namespace mirage::driver
