// Regions (search/regions.h), part 3: the search of a partition's regions
// side by side (each distinct text once) and the moving cuts.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "mirage/ir/printer.h"
#include "mirage/search/regions.h"

namespace mirage::search {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// One region text's search outcome, shared by every region with that text.
struct Searched {
  ir::Graph best;
  double costUs = 0;
  int kernels = 0;
  double seconds = 0;
  std::string origin;
};


// A partition searched and stitched: what a RegionsResult keeps of it.
struct Partition {
  Cuts cuts;
  std::vector<RegionTiming> regions;
  std::vector<ir::Graph> bests;
  ir::Graph stitched;
  double costUs = 0;
};

// Makes p the result's partition.
void adopt(RegionsResult& out, Partition&& p) {
  out.cuts = std::move(p.cuts);
  out.regions = std::move(p.regions);
  out.bests = std::move(p.bests);
  out.stitched = std::move(p.stitched);
  out.costUs = p.costUs;
}

class RegionSearcher {
 public:
  RegionSearcher(const ir::Graph& program, const RegionSearch& search, const RegionOptions& opt)
      : program_(program), search_(search), opt_(opt) {
    stats_.exhausted = true;
    stats_.complete = true;
  }

  double secondsLeft() const {
    return opt_.timeLimitSeconds > 0 ? opt_.timeLimitSeconds - since(start_) : std::numeric_limits<double>::infinity();
  }

  // Splits at `cuts`, searches every region text not searched yet (side by
  // side), stitches. Empty (error set) when the split or the stitch fails.
  // `previous`: the partition this one merges regions of, for seeds.
  std::optional<Partition> evaluate(const Cuts& cuts, std::string* error, const Cuts* previous = nullptr) {
    std::vector<Region> regions = splitRegions(program_, cuts, error);
    if (regions.empty()) return std::nullopt;
    Partition out;
    out.cuts = cuts;
    std::vector<std::string> texts;
    for (const Region& r : regions) texts.push_back(ir::printGraph(r.program));
    searchAll({cuts}, previous);
    std::vector<const ir::Graph*> bests;
    for (size_t k = 0; k < regions.size(); ++k) {
      const Searched& s = memo_.at(texts[k]);
      bests.push_back(&s.best);
      RegionTiming t;
      t.begin = regions[k].begin;
      t.end = regions[k].end;
      t.reused = std::find(texts.begin(), texts.begin() + static_cast<long>(k), texts[k]) != texts.begin() + static_cast<long>(k);
      t.seconds = t.reused ? 0 : s.seconds;
      t.kernels = s.kernels;
      t.costUs = s.costUs;
      t.origin = s.origin;
      out.regions.push_back(t);
    }
    for (const ir::Graph* b : bests) out.bests.push_back(*b);
    out.stitched = stitchRegions(program_, regions, bests, error);
    if (out.stitched.ops.empty()) return std::nullopt;
    out.costUs = opt_.cost(out.stitched);
    return out;
  }

  Stats stats() const { return stats_; }

  // Searches, side by side, every region text of these partitions that has
  // not been searched yet.
  void searchAll(const std::vector<Cuts>& partitions, const Cuts* previous = nullptr) {
    std::vector<Region> regions;
    std::vector<std::string> texts;
    for (const Cuts& c : partitions) {
      std::string error;
      for (Region& r : splitRegions(program_, c, &error)) {
        std::string t = ir::printGraph(r.program);
        if (memo_.count(t) || std::find(texts.begin(), texts.end(), t) != texts.end()) continue;
        texts.push_back(std::move(t));
        regions.push_back(std::move(r));
      }
    }
    std::vector<size_t> todo;
    std::vector<std::vector<ir::Graph>> seeds(regions.size());
    for (size_t k = 0; k < regions.size(); ++k) {
      todo.push_back(k);
      if (previous) seeds[k] = seedsFor(regions[k], *previous);
    }
    runAll(regions, texts, todo, seeds);
  }

  // A region that is a union of regions of the partition `previous`, all
  // searched already (a merge of neighbouring parts): their bests stitched
  // into it, a program equivalent to it by composition; empty otherwise.
  std::vector<ir::Graph> seedsFor(const Region& region, const Cuts& previous) const {
    Cuts inner;
    for (int c : previous)
      if (c > region.begin && c < region.end) inner.push_back(c - region.begin);
    if (inner.empty()) return {};
    std::string error;
    std::vector<Region> parts = splitRegions(region.program, inner, &error);
    std::vector<const ir::Graph*> bests;
    for (const Region& r : parts) {
      auto it = memo_.find(ir::printGraph(r.program));
      if (it == memo_.end()) return {};
      bests.push_back(&it->second.best);
    }
    ir::Graph seed = stitchRegions(region.program, parts, bests, &error);
    if (seed.ops.empty()) return {};
    return {std::move(seed)};
  }

 private:
  void runAll(const std::vector<Region>& regions, const std::vector<std::string>& texts,
              const std::vector<size_t>& todo, const std::vector<std::vector<ir::Graph>>& seeds) {
    if (todo.empty()) return;
    int workers = std::max(1, std::min<int>(opt_.jobs, static_cast<int>(todo.size())));
    int jobsEach = std::max(1, opt_.jobs / workers);
    // Each region gets its own limit, cut to what is left of the deadline
    // when it starts (a region that completes early leaves its thread to the
    // next); the largest regions start first.
    std::vector<size_t> order = todo;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return regions[a].end - regions[a].begin > regions[b].end - regions[b].begin;
    });
    std::atomic<size_t> next{0};
    std::mutex mu;
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < order.size();) {
        size_t k = order[i];
        double seconds = std::max(0.05, std::min(opt_.secondsPerRegion, secondsLeft()));
        auto t0 = Clock::now();
        // One operator is one launch already: nothing to search, and its
        // space (that one launch) is exhausted.
        Result r;
        if (regions[k].end - regions[k].begin > 1) {
          r = search_(regions[k].program, seconds, jobsEach, seeds[k]);
        } else {
          r.stats.exhausted = r.stats.complete = true;
          r.stats.endedBy = "exhausted";
        }
        Searched s;
        s.seconds = since(t0);
        if (r.best >= 0 && static_cast<size_t>(r.best) < r.candidates.size()) {
          const Candidate& c = r.candidates[static_cast<size_t>(r.best)];
          s.best = c.graph;
          s.costUs = c.cost;
          s.kernels = c.kernels;
          s.origin = c.origin;
        } else {
          s.best = regions[k].program;
          s.costUs = opt_.cost(s.best);
          s.kernels = ir::countKernels(s.best);
          s.origin = regions[k].end - regions[k].begin > 1 ? "input" : "input (one operator)";
        }
        std::lock_guard lock(mu);
        if (opt_.log)
          opt_.log(fmt::format("region ops {}..{}: {} launch(es), {:.2f} us ({}) in {:.2f}s", regions[k].begin,
                               regions[k].end - 1, s.kernels, s.costUs, s.origin, s.seconds));
        addStats(stats_, r.stats);
        memo_[texts[k]] = std::move(s);
      }
    };
    std::vector<std::thread> threads;
    for (int w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
  }

  const ir::Graph& program_;
  const RegionSearch& search_;
  const RegionOptions& opt_;
  Clock::time_point start_ = Clock::now();
  std::map<std::string, Searched> memo_;
  Stats stats_;
};

}  // namespace

RegionsResult searchRegions(const ir::Graph& program, const RegionSearch& search, const RegionOptions& options) {
  auto start = Clock::now();
  RegionsResult out;
  RegionSearcher searcher(program, search, options);
  out.initialCuts = options.mergeParts ? partCuts(program) : chooseCuts(program, options.rule);
  std::optional<Partition> first = searcher.evaluate(out.initialCuts, &out.error);
  if (!first) return out;
  adopt(out, std::move(*first));
  if (options.mergeParts) {
    // Merging: region j with region j + 1 (cut j dropped); a kept merge is
    // tried again with the region after it.
    for (size_t j = 0; j < out.cuts.size() && searcher.secondsLeft() > 0;) {
      Cuts c = out.cuts;
      c.erase(c.begin() + static_cast<std::ptrdiff_t>(j));
      std::string error;
      ++out.mergesTried;
      std::optional<Partition> p = searcher.evaluate(c, &error, &out.cuts);
      if (p && options.log)
        options.log(fmt::format("regions at {} merged: {:.2f} us (best so far {:.2f} us)", out.cuts[j], p->costUs,
                                out.costUs));
      if (p && p->costUs < out.costUs - 1e-9) {
        ++out.mergesKept;
        adopt(out, std::move(*p));
      } else {
        ++j;
      }
    }
    out.stats = searcher.stats();
    out.stats.seconds = since(start);
    return out;
  }

  // Moving cuts: the cuts whose two neighbouring regions cost most are tried
  // at nearby eligible positions; a move is kept when the stitched program
  // is cheaper by the cost model.
  std::vector<Boundary> bs = analyzeBoundaries(program, options.rule);
  int n = static_cast<int>(bs.size()) + 1;
  std::vector<std::pair<double, int>> order;  // (cost of the regions on both sides, cut index)
  for (size_t j = 0; j < out.cuts.size(); ++j)
    order.push_back({-(out.regions[j].costUs + out.regions[j + 1].costUs), static_cast<int>(j)});
  std::sort(order.begin(), order.end());
  int tried = 0;
  for (auto [negCost, j] : order) {
    if (tried++ >= options.cutMoves || searcher.secondsLeft() < options.secondsPerMove) break;
    // Every neighbouring position of cut j that keeps its two regions
    // within maxOps; their new regions are searched side by side.
    std::vector<Cuts> moves;
    for (int d = 1; d <= options.moveDistance; ++d)
      for (int sign : {-1, 1}) {
        Cuts c = out.cuts;
        int pos = c[static_cast<size_t>(j)] + sign * d;
        int lo = j > 0 ? c[static_cast<size_t>(j - 1)] : 0;
        int hi = static_cast<size_t>(j) + 1 < c.size() ? c[static_cast<size_t>(j + 1)] : n;
        if (pos <= lo || pos >= hi || !bs[static_cast<size_t>(pos - 1)].eligible) continue;
        if (pos - lo > options.rule.maxOps || hi - pos > options.rule.maxOps) continue;
        c[static_cast<size_t>(j)] = pos;
        moves.push_back(c);
      }
    searcher.searchAll(moves);
    const int from = out.cuts[static_cast<size_t>(j)];
    for (const Cuts& c : moves) {
      std::string error;
      ++out.movesTried;
      std::optional<Partition> p = searcher.evaluate(c, &error);
      if (!p) continue;
      if (options.log)
        options.log(fmt::format("cut {} moved to {}: {:.2f} us (best so far {:.2f} us)", from,
                                c[static_cast<size_t>(j)], p->costUs, out.costUs));
      if (p->costUs < out.costUs - 1e-9) {
        ++out.movesKept;
        adopt(out, std::move(*p));
      }
    }
  }
  out.stats = searcher.stats();
  out.stats.seconds = since(start);
  return out;
}

}  // namespace mirage::search
