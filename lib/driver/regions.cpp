// mirage-opt on a large program: the search by regions (search/regions.h)
// with the backend's cost model and the result cache per region, the
// stitched program verified against the whole input, and what the report
// says of it. The rule for when a program is searched by regions is
// usesRegions (docs/search.md, "Regions").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "cache.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/search/layout_rewrite.h"
#include "mirage/search/regions.h"
#include "mirage/verify/verifier.h"
#include "run.h"

namespace mirage::driver {
namespace {

// The region's result from the cache, every candidate verified again against
// the region (a cache entry is never trusted); nullopt on a miss or an entry
// that does not hold up.
std::optional<search::Result> cachedRegion(const std::string& dir, const std::string& key, const ir::Graph& region,
                                           const std::function<double(const ir::Graph&)>& cost,
                                           const verify::Options& vopt) {
  auto hit = loadCache(dir, key);
  if (!hit || hit->candidatesMg.empty()) return std::nullopt;
  verify::Verifier verifier(region, vopt);
  search::Result r;
  for (size_t i = 0; i < hit->candidatesMg.size(); ++i) {
    parse::Diagnostics diags("<cache>", hit->candidatesMg[i]);
    auto g = parse::parseProgram(hit->candidatesMg[i], diags);
    if (!g || !ir::checkProgram(*g).empty()) return std::nullopt;
    verify::Verdict v = verifier.check(*g);
    if (!v.equivalent) return std::nullopt;
    search::Candidate c;
    c.id = static_cast<int>(i);
    c.graph = std::move(*g);
    c.kernels = ir::countKernels(c.graph);
    c.cost = cost(c.graph);
    c.errorBound = v.errorBound;
    c.origin = hit->origins[i];
    r.candidates.push_back(std::move(c));
  }
  r.stats = hit->stats;
  r.best = 0;
  for (size_t i = 1; i < r.candidates.size(); ++i)
    if (r.candidates[i].cost < r.candidates[static_cast<size_t>(r.best)].cost) r.best = static_cast<int>(i);
  return r;
}

// A program of at most kRegionThresholdOps operators is searched whole
// unless it falls apart into independent parts; then by its parts, merged
// where that pays (search::RegionOptions::mergeParts).
bool searchedByParts(const Run& run) {
  return static_cast<int>(search::operatorOps(run.program).size()) <= kRegionThresholdOps;
}

}  // namespace

bool usesRegions(const Run& run) {
  // A custom kernel of the input is a part of its own (the search makes
  // nothing equal to it), so the rest of a small program can still fuse.
  if (searchedByParts(run)) return !search::partCuts(run.program).empty();
  for (const ir::Op& op : run.program.ops)
    if (op.kind == ir::OpKind::Kernel) return false;  // already a μGraph
  // Concats and slices the layout simplification folds (RoPE) are searched
  // in its segments when each is small (search/layout_rewrite.h).
  if (search::simplifiesIntoSmallSegments(run.program, kRegionThresholdOps)) return false;
  search::RegionRule rule;
  rule.maxOps = kRegionMaxOps;
  return !search::chooseCuts(run.program, rule).empty();
}

bool searchByRegions(Run& run, double budget, const std::function<double(const ir::Graph&)>& cost,
                     const verify::Options& vopt) {
  const Options& opt = run.opt;
  auto start = Clock::now();
  std::string dir = cacheDirectory(opt);
  search::Limits limits = opt.limits;
  if (run.arch.smemBytesPerBlock > 0) limits.smemBytesPerBlock = run.arch.smemBytesPerBlock;
  std::mutex mu;
  int hits = 0, calls = 0;  // region searches asked for (distinct texts), and how many the cache answered
  // Every candidate a region search returns was checked against its region
  // with these options (a cached one just now): the proof by composition
  // need not check those pairs again (search::verifyStitched).
  search::ProvenPairs proven;
  auto recordProven = [&](const ir::Graph& region, const search::Result& r) {
    std::string regionText = ir::printGraph(region);
    std::lock_guard lock(mu);
    for (const search::Candidate& c : r.candidates) proven[{regionText, ir::printGraph(c.graph)}] = c.errorBound;
  };
  auto log = [&](const std::string& s) {
    if (opt.verbosity > 0) run.note(s);
  };

  search::RegionOptions ro;
  ro.rule.maxOps = kRegionMaxOps;
  ro.rule.numSMs = run.arch.numSMs;
  ro.rule.launchUs = run.arch.launchOverheadUs;
  if (run.arch.dramBandwidthGBs > 0) ro.rule.bandwidthGBs = run.arch.dramBandwidthGBs;
  ro.jobs = vopt.threads;
  ro.secondsPerRegion = kRegionSearchSeconds;
  ro.mergeParts = searchedByParts(run);
  // The whole check and the numerics check come after the regions: they get
  // a fifth of what the search may use, and at least 3 s of it (half, when
  // that is less): the decoder layer's whole check takes about 2.5 s on a
  // busy machine, and regions that are never checked are wasted.
  ro.timeLimitSeconds = budget - std::max(0.2 * budget, std::min(3.0, 0.5 * budget));
  ro.cost = cost;
  ro.log = [&](const std::string& s) { log(s); };
  // Content-addressed: the key is the region's canonical text (with the
  // limits, the target, the seed and the tool version), so equal regions of
  // other programs, layers or runs share their entries.
  std::string keyNote = fmt::format("{} seed {} region {}", run.archName, opt.seed,
                                    opt.timeLimitSeconds > 0 ? fmt::format("{:.3f}", opt.timeLimitSeconds) : "default");
  search::RegionSearch hook = [&](const ir::Graph& region, double seconds, int jobs,
                                  const std::vector<ir::Graph>& seeds) {
    verify::Options rv = vopt;
    rv.threads = jobs;
    std::string key = cacheKey(region, limits, keyNote);
    {
      std::lock_guard lock(mu);
      ++calls;
    }
    if (!opt.noCache)
      if (auto r = cachedRegion(dir, key, region, cost, rv)) {
        recordProven(region, *r);
        std::lock_guard lock(mu);
        ++hits;
        return *r;
      }
    verify::Verifier verifier(region, rv);
    search::Options so;
    so.limits = limits;
    so.timeLimitSeconds = seconds;
    so.jobs = jobs;
    so.seed = opt.seed;
    so.cost = cost;
    setCostBounds(run.arch, so);
    // A seed is proven by composition already; checked again all the same,
    // as a cache entry is (it costs one check of a small region).
    for (const ir::Graph& seed : seeds)
      if (verifier.check(seed).equivalent) so.seeds.push_back(seed);
    // A region's search stops early once its best is old: three times as
    // old as it was when found, and at least kRegionQuietSeconds (the best of
    // every decoder-layer region comes within 2 s; a search that ends by
    // itself when complete makes this moot).
    std::atomic<bool> quiet{false};
    so.cancel = &quiet;
    so.onProgress = [&](const search::Stats& s) {
      if (s.secondsToBest >= 0 && s.seconds >= std::max(kRegionQuietSeconds, 3 * s.secondsToBest)) quiet = true;
    };
    search::Result r = search::runSearch(region, verifier, so);
    recordProven(region, r);
    // cli.md has three ways a search ends; a region cut by the quiet rule
    // above was stopped by a time rule before it was complete, so it is
    // reported as "time_limit" (complete stays false), and the whole run
    // then says "time_limit" too (search::addStats keeps the least
    // conclusive ending).
    if (r.stats.endedBy == "cancelled") {
      r.stats.endedBy = "time_limit";
      r.stats.complete = false;
    }
    if (!opt.noCache && r.best >= 0) {
      search::Result best;
      best.candidates.push_back(r.candidates[static_cast<size_t>(r.best)]);
      best.best = 0;
      best.stats = r.stats;
      std::string e = storeCache(dir, key, best);
      if (!e.empty()) log(fmt::format("region cache not written: {}", e));
    }
    return r;
  };

  search::RegionsResult rr = search::searchRegions(run.program, hook, ro);
  double searchSeconds = since(start);
  if (!rr.error.empty()) {
    run.note(fmt::format("regions: {}; searching the program whole", rr.error));
    return false;
  }

  search::Result result;
  search::Candidate input;
  input.graph = run.program;
  input.kernels = ir::countKernels(run.program);
  input.cost = cost(run.program);
  input.errorBound = 0;
  input.origin = "input";
  result.candidates.push_back(std::move(input));
  result.stats = rr.stats;

  std::string how;
  double verifySeconds = 0;
  {
    verify::Verifier whole(run.program, vopt);
    verify::Cancel cancel;
    if (opt.timeLimitSeconds > 0)
      cancel.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                           std::max(0.05, budget - since(start))));
    bool byRegions = false;
    auto verifyStart = Clock::now();
    verify::Verdict v =
        search::verifyStitched(run.program, whole, rr.cuts, rr.bests, rr.stitched, vopt, cancel, &byRegions, &proven);
    verifySeconds = since(verifyStart);
    if (v.equivalent) {
      search::Candidate c;
      c.id = 1;
      c.graph = rr.stitched;
      c.kernels = ir::countKernels(c.graph);
      c.cost = cost(c.graph);
      c.errorBound = v.errorBound;
      c.origin = fmt::format("regions: {} stitched", rr.regions.size());
      c.foundAtSeconds = since(start);
      result.candidates.push_back(std::move(c));
      result.stats.verified = static_cast<int64_t>(result.candidates.size()) - 1;
      result.stats.secondsToFirst = result.stats.secondsToBest = since(start);
      how = byRegions ? v.message : "verified whole";
    } else {
      ++result.stats.checkFailed;
      if (result.stats.firstRejection.empty()) result.stats.firstRejection = v.message;
      how = fmt::format("rejected by the whole check: {}", v.message);
      run.note(fmt::format("regions: the stitched program is {}", how));
    }
  }
  result.best = 0;
  for (size_t i = 1; i < result.candidates.size(); ++i)
    if (std::tie(result.candidates[i].cost, result.candidates[i].kernels) <
        std::tie(result.candidates[static_cast<size_t>(result.best)].cost,
                 result.candidates[static_cast<size_t>(result.best)].kernels))
      result.best = static_cast<int>(i);
  result.stats.seconds = since(start);
  if (result.stats.bestCost < 0) result.stats.bestCost = result.candidates[static_cast<size_t>(result.best)].cost;

  nlohmann::json regions = nlohmann::json::array();
  for (const search::RegionTiming& t : rr.regions)
    regions.push_back({{"operators", {t.begin, t.end - 1}},
                       {"seconds", t.seconds},
                       {"kernels", t.kernels},
                       {"predicted_us", t.costUs},
                       {"repeat_of_earlier_region", t.reused},
                       {"origin", t.origin}});
  run.regionsReport = {{"count", rr.regions.size()},
                       {"rule", ro.mergeParts ? fmt::format("at most {} operators: independent parts, merged where "
                                                            "that pays", kRegionThresholdOps)
                                            : fmt::format("more than {} operators; cuts at row barriers, regions of "
                                                          "at most {}", kRegionThresholdOps, kRegionMaxOps)},
                       {"cuts", rr.cuts},
                       {"initial_cuts", rr.initialCuts},
                       {"moves_tried", rr.movesTried},
                       {"moves_kept", rr.movesKept},
                       {"merges_tried", rr.mergesTried},
                       {"merges_kept", rr.mergesKept},
                       {"region_searches", calls},
                       {"cache_hits", hits},
                       {"search_seconds", searchSeconds},
                       {"seconds", result.stats.seconds},
                       {"verification", how},
                       {"verification_seconds", verifySeconds},
                       {"regions", regions}};
  run.note(fmt::format("regions: {} regions (cuts {}), {} launch(es) stitched, {:.2f} us predicted; {} region "
                       "cache hit(s); {} of {} cut moves and {} of {} merges kept; searched in {:.2f}s, {} in {:.2f}s",
                       rr.regions.size(), fmt::join(rr.cuts, ","), rr.stitched.ops.empty() ? 0 : ir::countKernels(rr.stitched),
                       rr.costUs, hits, rr.movesKept, rr.movesTried, rr.mergesKept, rr.mergesTried, searchSeconds, how,
                       verifySeconds));
  run.result = std::move(result);
  return true;
}

}  // namespace mirage::driver
