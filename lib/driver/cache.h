// The result cache: verified candidates of a search, stored as JSON under a
// key that hashes the program's canonical printed text, the search limits,
// the target architecture and the tool version (never file times), so that a
// second run of the same program skips the search (its candidates are
// verified again on loading: the cache is never trusted blindly).
//
// Content addressing: the key depends on nothing but that material -- not
// the file's name or path, the graph's name or the names of intermediate
// values, the host, the user or the time -- so the same
// program (or the same region of a larger one, once regions are searched on
// their own) gets the same key on every machine running the same version.
// One directory shared over the network is therefore a cache for a whole
// cluster (CI runners, a Slurm or Kubernetes job array: docs/scaling.md).
//
// Concurrency: many processes may use one directory at once, without locks.
// An entry is written to a unique temporary file in the directory and
// renamed over `KEY.json` (atomic within one directory, also on NFS); a
// reader validates the entry whole (it parses; format, key, version) and
// takes anything else as a miss. Two writers of one key leave one of their
// entries, both being valid results of the same search.
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
