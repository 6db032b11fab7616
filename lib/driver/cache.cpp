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

}  // namespace

std::string cacheKey(const ir::Graph& program, const search::Limits& limits, const std::string& arch) {
  std::string material = fmt::format(
      "mirage-opt {}\narch {}\nlimits {} {} {} {} {} {}{}\n{}", MIRAGE_VERSION, arch, limits.maxKernels, limits.maxDiscrepancies,
      limits.maxBlockOps, limits.maxGridDims, limits.smemBytesPerBlock, limits.maxCandidatesPerTemplate,
      limits.allowUnguardedExp ? " unguarded-exp" : " guarded-exp", ir::printGraph(program));
  // Two independent hashes make an accidental collision negligible.
  return fmt::format("{:016x}{:016x}", fnv1a(material), fnv1a(material + "#"));
}

std::optional<CachedResult> loadCache(const std::string& dir, const std::string& key) {
  std::ifstream f(std::filesystem::path(dir) / (key + ".json"));
  if (!f) return std::nullopt;
  try {
    nlohmann::json j = nlohmann::json::parse(f);
    if (j.at("key").get<std::string>() != key) return std::nullopt;
    CachedResult r;
    for (const auto& c : j.at("candidates")) {
      r.candidatesMg.push_back(c.at("mg").get<std::string>());
      r.origins.push_back(c.value("origin", std::string()));
    }
    const auto& s = j.at("search");
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
    return std::nullopt;
  }
}

std::string storeCache(const std::string& dir, const std::string& key, const search::Result& result) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fmt::format("cannot create cache directory '{}': {}", dir, ec.message());
  nlohmann::json j;
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
  return writeFileAtomically((std::filesystem::path(dir) / (key + ".json")).string(), j.dump(1));
}

}  // namespace mirage::driver
