// Result cache (see cache.h).
#include "cache.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "mirage/driver/driver.h"
#include "mirage/ir/printer.h"

namespace mirage::driver {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Bumped whenever an entry's layout changes; an entry of another format is
// a miss (and is overwritten by this run's result).
constexpr const char* kFormat = "mirage-opt-result-cache 2";

// Entries larger than this are not read (no valid entry comes near it; a
// damaged file system could present anything).
constexpr uintmax_t kMaxEntryBytes = uintmax_t{1} << 30;

std::optional<std::string> readWhole(const std::filesystem::path& path) {
  std::error_code ec;
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxEntryBytes) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad()) return std::nullopt;
  return text.str();
}

// The program as the key sees it: only what the search's result depends on.
// The graph's name and the names of program-level intermediates are left
// out (the printer gives unnamed values fresh names in order), so the same
// computation under other names -- layer 0 and layer 17 of a model, each in
// its own file -- has one key. Input and output names stay: they are the
// interface every written program keeps (cli.md), and the verifier matches
// inputs by name.
std::string canonicalText(const ir::Graph& program) {
  ir::Graph g = program;
  g.name.clear();
  std::vector<bool> keep(g.values.size(), false);
  for (ir::ValueId v : g.inputs) keep[static_cast<size_t>(v)] = true;
  for (ir::ValueId v : g.outputs) keep[static_cast<size_t>(v)] = true;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (!keep[v]) g.values[v].name.clear();
  return ir::printGraph(g);
}

}  // namespace

std::string cacheKey(const ir::Graph& program, const search::Limits& limits, const std::string& arch) {
  std::string material = fmt::format(
      "mirage-opt {} search {}\narch {}\nlimits {} {} {} {} {} {}{}\n{}", MIRAGE_VERSION, search::kSearchRevision, arch,
      limits.maxKernels, limits.maxDiscrepancies,
      limits.maxBlockOps, limits.maxGridDims, limits.smemBytesPerBlock, limits.maxCandidatesPerTemplate,
      limits.allowUnguardedExp ? " unguarded-exp" : " guarded-exp", canonicalText(program));
  // Two independent hashes make an accidental collision negligible.
  return fmt::format("{:016x}{:016x}", fnv1a(material), fnv1a(material + "#"));
}

std::optional<CachedResult> loadCache(const std::string& dir, const std::string& key) {
  // Readers take no lock: writers only ever rename a whole entry into place,
  // so the file opened is some writer's complete entry. Whatever else it may
  // be (an older format, a file truncated by a crash on a file system without
  // the fsync guarantee -- the text then lacks its closing brace --, garbage)
  // fails the parse or one of the checks below and is a miss, never an error.
  // A damaged entry that still parses is caught by verifying every candidate
  // again (driver.cpp, useCacheHit), as for a tampered one.
  auto text = readWhole(std::filesystem::path(dir) / (key + ".json"));
  if (!text) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return std::nullopt;
    if (j.value("format", std::string()) != kFormat) return std::nullopt;
    if (j.value("key", std::string()) != key || j.value("version", std::string()) != MIRAGE_VERSION) return std::nullopt;
    const nlohmann::json& cands = j.at("candidates");
    const nlohmann::json& s = j.at("search");
    if (!cands.is_array() || !s.is_object()) return std::nullopt;
    CachedResult r;
    for (const auto& c : cands) {
      r.candidatesMg.push_back(c.at("mg").get<std::string>());
      r.origins.push_back(c.value("origin", std::string()));
    }
    r.stats.states = s.value("states", int64_t{0});
    r.stats.pruned = s.value("pruned", int64_t{0});
    r.stats.verified = s.value("verified", int64_t{0});
    r.stats.rejectedUndefined = s.value("rejected_undefined", int64_t{0});
    r.stats.rejectedUnguarded = s.value("rejected_unguarded", int64_t{0});
    r.stats.seconds = s.value("seconds", 0.0);
    r.stats.secondsToFirst = s.value("seconds_to_first", -1.0);
    r.stats.secondsToBest = s.value("seconds_to_best", -1.0);
    r.stats.timedOut = s.value("timed_out", false);
    r.stats.exhausted = s.value("exhausted", false);
    if (r.candidatesMg.empty()) return std::nullopt;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // a member of the wrong type
  }
}

std::string storeCache(const std::string& dir, const std::string& key, const search::Result& result) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create cache directory '{}': {}", dir, ec.message());
  nlohmann::json j;
  j["format"] = kFormat;
  j["key"] = key;
  j["version"] = MIRAGE_VERSION;
  nlohmann::json cands = nlohmann::json::array();
  for (const search::Candidate& c : result.candidates)
    cands.push_back({{"mg", ir::printGraph(c.graph)}, {"origin", c.origin}, {"error_bound", c.errorBound}});
  j["candidates"] = cands;
  const search::Stats& s = result.stats;
  j["search"] = {{"states", s.states},       {"pruned", s.pruned},
                 {"verified", s.verified},   {"seconds", s.seconds},
                 {"seconds_to_first", s.secondsToFirst}, {"seconds_to_best", s.secondsToBest},
                 {"timed_out", s.timedOut},  {"exhausted", s.exhausted},
                 {"rejected_undefined", s.rejectedUndefined}, {"rejected_unguarded", s.rejectedUnguarded}};
  // A unique temporary file in the cache directory, renamed over the entry:
  // concurrent writers of one key (processes on this machine or on others
  // sharing the directory) end with one of their entries, whole.
  return writeFileAtomically((std::filesystem::path(dir) / (key + ".json")).string(), j.dump(1));
}

}  // namespace mirage::driver
