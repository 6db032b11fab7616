// The search driver: work items (kernels, discrepancies, first kernel's
// configuration) run by worker threads with state budgets, one queue per
// kernel count (docs/search.md, "Scheduling"), extents chosen
// per template by cost within the shared-memory budget, every candidate
// verified, results merged in a deterministic order.
#include "mirage/search/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <limits>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <numeric>
#include <thread>

#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/search/guard.h"
#include "mirage/search/layout_rewrite.h"
#include "mirage/verify/verifier.h"
#include "segments.h"
#include "saturated_states.h"
#include "space.h"
#include "tie_key.h"

namespace mirage::search {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string planKey(const Plan& plan) {
  std::string k;
  for (const KernelTemplate& kt : plan.kernels) {
    k += fmt::format("K{}:", kt.loop);
    for (const GridAxis& a : kt.grid) k += fmt::format("{}{},", a.label, a.split ? "s" : "");
    for (int a : kt.args) k += fmt::format("a{},", a);
    for (const BodyOp& o : kt.ops)
      k += fmt::format("({} {} {} {} {} {}/{}{} {} {}{}),", static_cast<int>(o.kind), o.in0, o.in1, o.dim,
                       o.reduceToInner, o.scalar.num, o.scalar.den, o.scalarFirst ? "f" : "", o.arg, o.fmap,
                       o.accumMax ? " max" : "");
    for (size_t s = 0; s < kt.saved.size(); ++s)
      k += fmt::format("s{}:{},{},{}{};", kt.saved[s], kt.savedOmap[s][0], kt.savedOmap[s][1], kt.savedOmap[s][2],
                       s < kt.savedF32.size() && kt.savedF32[s] ? "f" : "");
  }
  return k;
}

std::string describe(const Plan& plan) {
  std::string s;
  for (const KernelTemplate& kt : plan.kernels) {
    if (!s.empty()) s += " + ";
    s += fmt::format("kernel({} ops, {} grid axes{}{})", kt.ops.size(), kt.grid.size(),
                     kt.loop != kUnit ? ", for-loop" : "",
                     std::any_of(kt.grid.begin(), kt.grid.end(), [](const GridAxis& a) { return a.split; })
                         ? ", split reduction"
                         : "");
  }
  return s;
}

// What decides between candidates of equal predicted time and launches:
// the plan's tie key (tie_key.h), then the printed text (the input's key
// sorts before every plan's, its text is "").
struct TieRank {
  std::vector<int64_t> key;
  std::string text;
  auto operator<=>(const TieRank&) const = default;
};

struct Found {
  int item = 0;  // work item that found it (smallest wins)
  int seq = 0;   // order within that item
  std::string planKey;
  TieRank rank;
  Candidate cand;
};

class Engine {
 public:
  Engine(const ir::Graph& program, const verify::Verifier& verifier, const Options& options)
      : program_(program), verifier_(verifier), opt_(options), start_(Clock::now()) {
    labels_ = analyzeLabels(program);
    requireGuard_ = !opt_.limits.allowUnguardedExp && asksForGuard(program);
    cost_ = opt_.cost ? opt_.cost : [](const ir::Graph& g) { return estimateCostUs(g); };
    if (opt_.cost) {
      kernelFloor_ = opt_.kernelFloor;
      launchesFloor_ = opt_.launchesFloor;
    } else {
      kernelFloor_ = [](const KernelFloor& f) { return estimateKernelFloorUs(f); };
      launchesFloor_ = [](int n, double bytes, int64_t steps) { return estimateLaunchesFloorUs(n, bytes, steps); };
    }
    for (auto& b : bestAtMost_) b.store(std::numeric_limits<double>::infinity());
    bestAny_.store(std::numeric_limits<double>::infinity());
    bestFound_.store(std::numeric_limits<double>::infinity());
  }

  Result run() {
    Result result;
    // The input itself, lowered one kernel per operator, is always a
    // candidate; so are the caller's seeds.
    publish(given(program_, "input"));
    for (const ir::Graph& g : opt_.seeds) publishSeed(given(g, "seed"));

    // Work items in a fixed order (the item order, which attributes
    // candidates): fewer kernels first, then fewer discrepancies.
    {
      Context probe;
      initContext(probe, program_, labels_, opt_.limits);
      // What every candidate moves through device memory at least: each
      // input an output depends on, read once, and each output, written once.
      const ir::Graph& g = program_;
      for (size_t i = 0; i < g.inputs.size(); ++i)
        if (probe.neededInput[i])
          ioBytes_ += static_cast<double>(ir::numElements(g.value(g.inputs[i]).shape)) * ir::dtypeBytes(g.dtype);
      for (ir::ValueId o : g.outputs)
        ioBytes_ += static_cast<double>(ir::numElements(g.value(o).shape)) * ir::dtypeBytes(g.dtype);
      // A target no plan can equal (a custom kernel's output): there is
      // nothing to search, and the space is exhausted at once.
      for (int k = 1; k <= opt_.limits.maxKernels && !probe.unreachableTarget; ++k) {
        int configs = countFirstConfigs(probe, k);
        size_t first = items_.size();
        for (int d = 0; d <= opt_.limits.maxDiscrepancies; ++d)
          for (int c = 0; c < configs; ++c) items_.push_back({k, d, c});
        // Configurations come most promising first (for-loop over the
        // largest reduction, most grid axes), so later passes of the first
        // ones are worth more than early passes of the last ones: each block
        // of kConfigsPerPass configurations is one pass behind the block
        // before it.
        std::stable_sort(items_.begin() + static_cast<std::ptrdiff_t>(first), items_.end(),
                         [](const Item& a, const Item& b) { return orderKey(a) < orderKey(b); });
      }
    }
    state_.assign(items_.size(), ItemState{});
    previousPass_.assign(items_.size(), -1);
    {
      std::map<std::tuple<int, int, int>, int> index;
      for (size_t i = 0; i < items_.size(); ++i) index[{items_[i].kernels, items_[i].depth, items_[i].config}] = static_cast<int>(i);
      for (size_t i = 0; i < items_.size(); ++i) {
        auto p = index.find({items_[i].kernels, items_[i].depth - 1, items_[i].config});
        if (p != index.end()) previousPass_[i] = p->second;
      }
    }
    queues_.assign(static_cast<size_t>(std::max(1, opt_.limits.maxKernels)), {});
    used_.assign(queues_.size(), 0);
    cheapestTemplate_.assign(queues_.size(), {std::numeric_limits<double>::infinity(), -1});
    traceItems_ = std::getenv("MIRAGE_TRACE_ITEMS") != nullptr;
    for (size_t i = 0; i < items_.size(); ++i) queueLocked(static_cast<int>(i));
    int jobs = std::max(1, opt_.jobs);
    std::vector<std::thread> workers;
    for (int j = 0; j < jobs; ++j) workers.emplace_back([this] { work(); });
    {
      std::unique_lock lock(mu_);
      while (!finishedAll()) {
        if (cv_.wait_for(lock, std::chrono::milliseconds(200), [&] { return finishedAll(); })) break;
        if (opt_.onProgress && secondsSince(lastProgress_) >= 1.0) {
          lastProgress_ = Clock::now();
          Stats s = snapshotLocked();
          lock.unlock();
          opt_.onProgress(s);
          lock.lock();
        }
      }
    }
    for (std::thread& t : workers) t.join();

    std::vector<Found> found;
    for (auto& [text, f] : byText_) {
      // Attribute each candidate to the first work item (in the fixed order)
      // that reached its template, so that the order does not depend on
      // which thread got there first.
      auto [item, seq] = planSeen_.at(f.planKey);
      if (std::make_pair(item, seq) < std::make_pair(f.item, f.seq)) f.item = item, f.seq = seq;
      found.push_back(std::move(f));
    }
    // Keep the Pareto front under the strict order of dominates() (which is
    // false for a candidate against itself): which dominated candidates got
    // verified before their dominator depends on thread timing, the front
    // does not. Only the costs and launch counts of verifiedList_ are read
    // here, which moving the Found entries above leaves intact. Beyond the
    // front's reach (verifiedReachLocked(), from the best verified cost,
    // which does not depend on timing either in a complete run) nothing is
    // kept.
    int64_t offFront = 0;
    std::erase_if(found, [&](const Found& f) {
      if (f.cand.cost > verifiedReachLocked()) {
        ++offFront;
        return true;
      }
      for (size_t i = 0; i < verifiedList_.size(); ++i)
        if (dominates(*verifiedList_[i], verifiedRanks_[i], f.cand.cost, f.cand.kernels, f.rank)) {
          ++offFront;
          return true;
        }
      return false;
    });
    std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
      return std::tie(a.item, a.seq, a.rank.text) < std::tie(b.item, b.seq, b.rank.text);
    });
    std::vector<TieRank> ranks{inputRank()};
    result.candidates.push_back(std::move(inputCandidate_));
    for (Candidate& seed : seeds_) {
      result.candidates.push_back(std::move(seed));
      ranks.push_back(inputRank());
    }
    for (Found& f : found) {
      result.candidates.push_back(std::move(f.cand));
      ranks.push_back(std::move(f.rank));
    }
    for (size_t i = 0; i < result.candidates.size(); ++i) result.candidates[i].id = static_cast<int>(i);
    result.best = 0;
    for (size_t i = 1; i < result.candidates.size(); ++i) {
      const Candidate& c = result.candidates[i];
      const size_t b = static_cast<size_t>(result.best);
      const Candidate& bc = result.candidates[b];
      if (std::tie(c.cost, c.kernels, ranks[i]) < std::tie(bc.cost, bc.kernels, ranks[b]))
        result.best = static_cast<int>(i);
    }
    result.stats = snapshotLocked();
    result.stats.dominated += offFront;
    result.stats.verified -= offFront;
    result.stats.exhausted = !stopFlag_.load() && finishedItems_ == items_.size();
    result.stats.timedOut = timedOut_.load();
    result.stats.complete = result.stats.exhausted;
    if (result.stats.complete)
      result.stats.endedBy = result.stats.prunedByBound + result.stats.itemsPrunedByBound > 0 ? "bound" : "exhausted";
    else
      result.stats.endedBy = result.stats.timedOut ? "time_limit" : "cancelled";
    result.stats.bestCost = result.candidates[static_cast<size_t>(result.best)].cost;
    // Candidates whose check was cancelled by the stop are unverified, not rejected.
    result.stats.unverified = static_cast<int64_t>(pending_.size()) + cancelledChecks_;
    result.stats.firstRejection = firstRejection_;
    return result;
  }

 private:
  struct Item {
    int kernels, depth, config;
  };

  // The item order within one kernel count: each block of kConfigsPerPass
  // configurations one pass behind the block before it. Twelve since
  // revision 32 (six before): with provisional bounds a plan's bound
  // falls as soon as the plan is found, so reaching a later
  // configuration's early passes sooner costs less than it did
  // (QKNorm+GQA's scores kernel, configuration 24, is two passes behind
  // the first instead of four; docs/search.md, "Search order").
  static constexpr int kConfigsPerPass = 12;
  static int orderKey(const Item& it) { return it.depth + it.config / kConfigsPerPass; }
  // The schedule's key (takeRunLocked): the item order's, plus one for
  // every 4 times the run's budget exceeds the first budget, rounded to a
  // whole step, so that a pass predicted large waits as if it were a
  // later pass and passes of about the same predicted size keep the item
  // order among them. Except for the next pass of the configuration that
  // leads the front: its key is its pass alone, without the block offset
  // or the budget's share, so the pass around the best plan yet runs
  // next, however large, as a bet (betAspiration; docs/search.md,
  // "Scheduling", the cheapest configuration first and the leader's bet);
  // the whole pass after the bet has the item's own key. The item order
  // itself, and with it what a complete run returns, does not change.
  int scheduleKey(int item, int64_t budget) const {
    const Item& it = items_[static_cast<size_t>(item)];
    if (leadersNextRun(item)) return it.depth;
    return orderKey(it) + static_cast<int>(std::lround(std::log2(static_cast<double>(budget) / kFirstBudget) / 2));
  }

  // The item's configuration made the cheapest template so far of any
  // kernel count (of two as cheap, the one of fewer kernels), and the item
  // is that configuration's next pass: the one before it has ended. A
  // template that another kernel count beats is off the front, so nothing
  // near it is likely to win (QKNorm+GQA's two-kernel templates of 44 µs
  // against one kernel's 31 µs); the passes after the next wait their
  // turn, so that the threads do not race ahead into passes each many
  // times larger.
  bool leadsTheFront(int item) const {
    const Item& it = items_[static_cast<size_t>(item)];
    const auto& cheapest = cheapestTemplate_[static_cast<size_t>(it.kernels - 1)];
    if (cheapest.second != it.config) return false;
    const int prev = previousPass_[static_cast<size_t>(item)];
    if (prev >= 0 && !state_[static_cast<size_t>(prev)].finished && !state_[static_cast<size_t>(prev)].betEnded)
      return false;
    for (int k = 0; k < static_cast<int>(cheapestTemplate_.size()); ++k) {
      const double other = cheapestTemplate_[static_cast<size_t>(k)].first;
      if (k + 1 < it.kernels ? other <= cheapest.first : other < cheapest.first) return false;
    }
    return true;
  }

  // The item is the leader's next pass and its bet has not ended: its run
  // comes first, as a bet (betAspiration).
  bool leadersNextRun(int item) const {
    return leadsTheFront(item) && !state_[static_cast<size_t>(item)].betEnded;
  }

  // What any plan of the item costs at least: its launches, each needed
  // input read once and each output written once (launchesFloor; 0 without
  // one).
  double itemFloor(const Item& it) const {
    return launchesFloor_ ? quantizeUs(launchesFloor_(it.kernels, ioBytes_, 1)) : 0;
  }

  // Per work item: how many runs it had (each cut by its budget but the
  // last), and whether one ran to its end (or it was skipped).
  struct ItemState {
    int runs = 0;
    bool finished = false;
    int64_t budget = 0;  // of the last run taken
    int64_t states = 0;  // of the last run
    bool inFlight = false;
    // The leader's bet (betAspiration): the aspiration of the run taken
    // (infinity: no bet), and whether a bet ended with states left to a
    // later run, which then runs whole at the item's own key.
    double aspiration = std::numeric_limits<double>::infinity();
    // The bet's rungs (betAspiration): the run taken is the top one, how
    // many lower ones ended, and the least bound the last one pruned.
    bool topRung = true;
    int rungsClimbed = 0;
    double rungFrom = -std::numeric_limits<double>::infinity();
    bool betEnded = false;
    bool afterBet = false;  // the last run was a bet (a rung or the top) that ended: the next keeps its budget
  };

  // The schedule (docs/search.md, "Scheduling"): one queue per kernel
  // count. A free thread serves the kernel count that has used the fewest
  // states for its share (in-flight runs counted at their budget), so that
  // no kernel count waits for another's space to end, and takes from it
  // the run of the smallest key (scheduleKey: the item order's key, pass +
  // block of configurations, plus one for every 4 times its budget
  // exceeds the first budget, rounded; the pass alone for the next pass
  // of the configuration that leads the front), the first in the item
  // order among equals. So a pass predicted large waits as if it were a
  // later pass, and small items do not wait behind it.
  //
  // Returns the item of the run taken, or -1 when there is none now
  // (`wait`: runs in flight may still put their items back).
  int takeRunLocked(bool& wait) {
    wait = false;
    int lane = -1;
    for (size_t k = 0; k < queues_.size(); ++k)
      if (!queues_[k].empty() && (lane < 0 || weightedUse(k) < weightedUse(static_cast<size_t>(lane))))
        lane = static_cast<int>(k);
    if (lane < 0) {
      wait = inFlight_ > 0;
      return -1;
    }
    auto& q = queues_[static_cast<size_t>(lane)];
    auto best = q.end();
    int64_t bestBudget = 0;
    int bestKey = 0;
    for (auto i = q.begin(); i != q.end(); ++i) {
      int64_t b = nextBudgetLocked(*i);
      int key = scheduleKey(*i, b);
      if (best == q.end() || key < bestKey) best = i, bestBudget = b, bestKey = key;
    }
    int item = *best;
    q.erase(best);
    ++inFlight_;
    state_[static_cast<size_t>(item)].aspiration = betAspiration(item, &state_[static_cast<size_t>(item)].topRung);
    state_[static_cast<size_t>(item)].afterBet = false;
    state_[static_cast<size_t>(item)].budget = bestBudget;
    state_[static_cast<size_t>(item)].inFlight = true;
    used_[static_cast<size_t>(lane)] += bestBudget;
    return item;
  }

  // The leader's bet (docs/search.md, "Scheduling", the leader's bet):
  // the next pass of the configuration that leads the front runs ahead of
  // its turn, however large, on the bet that it holds a plan well below the
  // best so far. So it runs first with an aspiration halfway between its
  // kernel count's least cost (launchesFloor: the launches, the inputs read
  // once, the outputs written once) and the best verified candidate: a
  // state whose bound exceeds it is left to the whole pass, which runs
  // later at the item's own key. A pass's states crowd just under the best
  // (QKNorm+GQA's loopless scores kernel, pass 3: 1.8M states under a best
  // of 20.48 us, 1.0M under an aspiration of 18.46, 263,000 under 14.74),
  // so the bet costs a fraction of the pass, and a plan it finds bounds
  // everything after it. Infinity where the item is not the leader's next
  // pass, its bet has ended, or nothing is verified yet.
  //
  // The bet's rungs (Options::betRungs): a pass's states crowd so steeply
  // under the best that the halfway aspiration is itself most of the cost
  // (QKNorm+GQA's pass 3 above: 7,900 states under 12.0, 42,000 under
  // 12.65, 228,000 under 14.74; its best is 11.99). So the bet climbs:
  // its first run aspires an eighth of the way from the floor to the
  // best, and each next one an eighth of the way from the least bound the
  // run before pruned (Context::aspirationLeastPruned: every aspiration
  // below it prunes the same states), up to the halfway one, the top rung
  // (`*top`), after at most kMostRungs lower ones. A rung whose bound the
  // root exceeds visits nothing and costs a look-up.
  double betAspiration(int item, bool* top) const {
    *top = true;
    if (!opt_.leaderBets || !leadersNextRun(item)) return std::numeric_limits<double>::infinity();
    // The best verified, or with rungs a cheaper template still waiting for
    // the verifier: a bet's aspiration only orders the work (what it
    // prunes, the whole pass walks later), so an unverified plan may set
    // it, and the pass after the one that made it need not climb toward
    // a best the verifier is about to lower.
    double best = bestAny_.load(std::memory_order_relaxed);
    if (opt_.betRungs && std::isfinite(best))
      for (const auto& [cost, config] : cheapestTemplate_) best = std::min(best, cost);
    const double floor = itemFloor(items_[static_cast<size_t>(item)]);
    if (floor >= best) return best;
    const double halfway = floor + kBetShare * (best - floor);
    const ItemState& s = state_[static_cast<size_t>(item)];
    if (!opt_.betRungs || s.rungsClimbed >= kMostRungs) return halfway;
    const double from = std::max(floor, s.rungFrom);
    const double rung = from + kRungShare * (best - from);
    if (rung >= halfway) return halfway;
    *top = false;
    return rung;
  }
  static constexpr double kBetShare = 0.5;
  static constexpr double kRungShare = 0.125;
  static constexpr int kMostRungs = 4;
  static constexpr int kBetSeq = 1 << 30;  // added to the template numbers of a bet (consider)

  // Shares of the states: the second kernel halves the share and each
  // kernel after it quarters it (4 : 2 : 0.5 for one, two and three
  // kernels). Plans with more kernels have larger spaces and at equal cost
  // fewer launches win, but none waits for the others to end
  // (docs/search.md, "Scheduling").
  double weightedUse(size_t lane) const {
    const size_t shift = lane <= 1 ? lane : 2 * lane - 1;
    return std::ldexp(static_cast<double>(used_[lane]), static_cast<int>(std::min<size_t>(shift, 31)));
  }

  void queueLocked(int item) {
    const Item& it = items_[static_cast<size_t>(item)];
    queues_[static_cast<size_t>(it.kernels - 1)].insert(item);
  }

  // States the next run of an item may visit before it is cut. A pass
  // costs a few times the one before it (3 to 16 on the examples), so a
  // first run gets 16 times the states of the same configuration's
  // previous pass (16 times its budget while it has not ended, or what it
  // would get, while it has not run), at least kFirstBudget; a cut run's
  // successor gets 4 times its budget, so that repeating the cut prefixes
  // costs at most a third more.
  int64_t nextBudgetLocked(int item) const {
    const ItemState& s = state_[static_cast<size_t>(item)];
    if (opt_.itemBudgetStates > 0) return opt_.itemBudgetStates << (2 * std::min(s.runs, 20));
    // After a bet (a rung or the top) the next run gets its budget: it was not cut.
    if (s.runs > 0) return s.afterBet ? s.budget : std::min<int64_t>(s.budget, kMaxBudget / 4) * 4;
    int64_t b = kFirstBudget;
    const int prev = previousPass_[static_cast<size_t>(item)];
    if (prev >= 0) {
      const ItemState& p = state_[static_cast<size_t>(prev)];
      int64_t base = p.finished ? p.states : p.runs > 0 || inFlightItem(prev) ? p.budget : nextBudgetLocked(prev);
      b = std::max(b, std::min(base, kMaxBudget / 16) * 16);
    }
    return b;
  }
  bool anyQueuedLocked() const {
    for (const auto& q : queues_)
      if (!q.empty()) return true;
    return false;
  }
  bool inFlightItem(int item) const { return state_[static_cast<size_t>(item)].inFlight; }
  static constexpr int64_t kMaxBudget = int64_t{1} << 50;
  static constexpr int64_t kFirstBudget = 1 << 14;

  struct Pending {
    double cost = 0;
    int kernels = 0;
    int item = 0, seq = 0;
    bool boundedProvisionally = false;  // its cost lowered a bound before it was verified
    Clock::time_point foundAt;          // when consider() queued it (settledLocked)
    std::string planKey, origin;
    TieRank rank;
    ir::Graph graph;
  };

  bool finishedAll() const { return doneWorkers_ == std::max(1, opt_.jobs); }

  bool stopNow() {
    if (stopFlag_.load(std::memory_order_relaxed)) return true;
    if (opt_.cancel && opt_.cancel->load()) {
      stopFlag_ = true;
      return true;
    }
    if (opt_.timeLimitSeconds > 0 && secondsSince(start_) >= opt_.timeLimitSeconds) {
      timedOut_ = true;
      stopFlag_ = true;
      return true;
    }
    return false;
  }

  void flush(Stats& local) {
    std::lock_guard lock(mu_);
    total_.states += local.states;
    total_.pruned += local.pruned;
    total_.duplicates += local.duplicates;
    total_.templates += local.templates;
    total_.deferred += local.deferred;
    total_.prunedByBound += local.prunedByBound;
    local.states = local.pruned = local.duplicates = local.templates = local.deferred = local.prunedByBound = 0;
  }

  Stats snapshotLocked() const {
    Stats s = total_;
    s.seconds = secondsSince(start_);
    s.secondsToFirst = firstAt_;
    s.secondsToBest = bestAt_;
    s.bestCost = bestCost_;
    return s;
  }

  void work() {
    {
      std::lock_guard lock(mu_);
      ++running_;
    }
    Context ctx;
    initContext(ctx, program_, labels_, opt_.limits);
    ctx.floorMemo = floorMemo_;
    ctx.summands.shareAnswers(sharedAnswers_);
    if (!opt_.guardInEnumerator) ctx.guard = false;
    ctx.pruneUnreachable = opt_.pruneUnreachable;
    ctx.chargeSums = opt_.chargeSumsStillToMake;
    ctx.guardedSplitRules = opt_.guardedSplitRules;
    ctx.chargePartialLoops = opt_.chargePartialLoops;
    ctx.chargeExps = opt_.chargeExpsStillToMake;
    ctx.chargeLastKernel = opt_.chargeLastKernel;
    ctx.splitExpCases = opt_.splitExpCases;
    ctx.chargeUnreadValues = opt_.chargeUnreadValues;
    ctx.chargeOperandFlow = opt_.chargeOperandFlow;
    ctx.readExpArguments = opt_.readExpArguments;
    ctx.lastMakesFromArgument = opt_.lastMakesFromArgument;
    ctx.lastReadsExpTiles = opt_.lastReadsExpTiles;
    ctx.decideFlowInputs = opt_.decideFlowInputs;
    ctx.chargeTwoKernelFuture = opt_.chargeTwoKernelFuture;
    ctx.resumeAncestorWalks = opt_.resumeAncestorWalks;
    ctx.skipBarren = opt_.skipBarren;
    if (opt_.skipSaturatedStates) ctx.saturated = saturatedStates_.get();
    ctx.skipLoopsWithoutAccumulator = opt_.skipLoopsWithoutAccumulator;
    ctx.refuseSumsOverUnsummedLabels = opt_.refuseSumsOverUnsummedLabels;
    ctx.checkAncestorBounds = opt_.checkAncestorBounds;
    ctx.pruneByBound = opt_.pruneByBound;
    ctx.kernelFloor = kernelFloor_;
    ctx.launchesFloor = launchesFloor_;
    if (kernelFloor_ && launchesFloor_) {
      ctx.bestAtMost = bestAtMost_.data();
      ctx.bestFound = &bestFound_;
      ctx.frontSlack = opt_.frontSlack;
      ctx.bestKeyVersion = &bestKeyVersion_;
      ctx.refreshBestKeys = [this](Context& c) {
        std::lock_guard lock(mu_);
        c.bestKeys.assign(bestKeys_.begin(), bestKeys_.end());
        c.bestKeysSeen = bestKeyVersion_.load();
      };
    }
    int calls = 0;
    auto lastVerify = Clock::now();
    KernelExtentsMemo extentsMemo;  // this thread's: its templates share kernels
    // States of this thread so far (ctx.stats is emptied by every flush)
    // and where the current run started, for its budget.
    int64_t flushedStates = 0, runStart = 0, runBudget = 0;
    bool cut = false;
    int item = 0, seq = 0;
    auto flushLocal = [&] {
      flushedStates += ctx.stats.states;
      flush(ctx.stats);
    };
    auto shouldStop = [&] {
      // The run's budget, in states: deterministic, so that where a run is
      // cut does not depend on the machine or the number of threads.
      if (cut) return true;
      if (runBudget > 0 && flushedStates + ctx.stats.states - runStart >= runBudget) {
        // A cut makes room for other runs; with none waiting it would only
        // repeat this run's prefix, so the run goes on with the budget its
        // repetition would get (the result of a complete run does not
        // depend on where runs are cut).
        std::lock_guard lock(mu_);
        if (!anyQueuedLocked()) {
          ItemState& s = state_[static_cast<size_t>(item)];
          int64_t more = nextBudgetLocked(item);
          used_[static_cast<size_t>(items_[static_cast<size_t>(item)].kernels - 1)] += more - s.budget;
          s.budget = runBudget = more;
          ++total_.itemsExtended;
        } else {
          cut = true;
          return true;
        }
      }
      // Verify what the search found so far, at most every 100 ms, so that
      // a good candidate is verified early: deep states of a large body
      // take long enough that counting states would leave it waiting for
      // seconds, so this looks at the clock (every 16 calls).
      if (++calls % 16 != 0) return stopFlag_.load(std::memory_order_relaxed);
      if (secondsSince(lastVerify) > 0.1) {
        flushLocal();
        while (!stopNow() && verifyOne()) {
        }
        lastVerify = Clock::now();
      }
      return stopNow();
    };
    ctx.stopped = [&] {
      if (!shouldStop()) return false;
      ++ctx.haltsEver;
      return true;
    };
    ctx.emit = [&](const Plan& plan) {
      if (traceItems_)
        fmt::print(stderr, "emit item {} after {} states at {:.2f}s: {}\n", item,
                   flushedStates + ctx.stats.states - runStart, secondsSince(start_), describe(plan));
      consider(plan, item, seq, extentsMemo, std::isfinite(ctx.aspiration));
    };
    while (!stopNow()) {
      bool wait = false;
      {
        std::unique_lock lock(mu_);
        item = takeRunLocked(wait);
        if (item < 0 && wait) {
          // Another thread's run may be cut and come back: verify, or wait.
          lock.unlock();
          if (!verifyOne(/*idle=*/true)) {
            std::unique_lock again(mu_);
            cv_.wait_for(again, std::chrono::milliseconds(50));
          }
          continue;
        }
      }
      if (item < 0) {
        std::lock_guard lock(mu_);
        itemsDone_ = true;  // nothing queued, nothing in flight: ties may be checked now
        break;
      }
      seq = 0;
      const Item& it = items_[static_cast<size_t>(item)];
      const std::pair<int, int> key{it.kernels, it.config};
      bool skip = false;
      // k launches that cost more than a verified candidate with at most k
      // launches, or at least as much as one with fewer: no plan of this
      // item can be on the front (Context::beaten).
      const double floor = itemFloor(it);
      if (launchesFloor_ && (floor > threshold(it.kernels) || floor >= threshold(it.kernels - 1) || floor > reach())) {
        std::lock_guard lock(mu_);
        ++total_.itemsPrunedByBound;
        skip = true;
      }
      // A pass of this configuration that refused no move for its
      // discrepancy budget was the whole space of the configuration: every
      // later pass would visit the same states (the budget left at each is
      // one more, which no test then reaches) and, with a best at least as
      // good, emit a subset of the same plans. Skip them.
      if (!skip) {
        std::lock_guard lock(mu_);
        auto s = saturated_.find(key);
        skip = s != saturated_.end() && s->second < it.depth;
      }
      bool finished = true, betLost = false;
      double leastPruned = std::numeric_limits<double>::infinity();
      int64_t states = 0;
      auto runStarted = Clock::now();
      if (!skip) {
        {
          std::lock_guard lock(mu_);
          runBudget = state_[static_cast<size_t>(item)].budget;
          ctx.aspiration = state_[static_cast<size_t>(item)].aspiration;
        }
        runStart = flushedStates + ctx.stats.states;
        cut = false;
        ctx.planKernels = std::min(it.kernels, kMaxBoundKernels);
        const int64_t deferredBefore = ctx.deferredEver, betBefore = ctx.aspirationPrunesEver;
        ctx.aspirationLeastPruned = std::numeric_limits<double>::infinity();
        searchPlans(ctx, it.kernels, it.depth, it.config);
        ctx.aspiration = std::numeric_limits<double>::infinity();
        states = flushedStates + ctx.stats.states - runStart;
        runBudget = 0;
        betLost = ctx.aspirationPrunesEver != betBefore;
        leastPruned = ctx.aspirationLeastPruned;
        finished = !cut && !stopNow() && !betLost;
        // A run cut by its budget explored only part of the space: that it
        // deferred nothing so far says nothing about the rest.
        if (finished && ctx.deferredEver == deferredBefore) {
          std::lock_guard lock(mu_);
          auto [s, inserted] = saturated_.emplace(key, it.depth);
          if (!inserted) s->second = std::min(s->second, it.depth);
        }
      }
      {
        std::lock_guard lock(mu_);
        --inFlight_;
        ItemState& s = state_[static_cast<size_t>(item)];
        s.inFlight = false;
        ++s.runs;
        s.states = states;
        if (!skip) ++total_.itemRuns;
        if (cut) ++total_.itemsCut;
        used_[static_cast<size_t>(it.kernels - 1)] += states - s.budget;
        if (traceItems_)
          fmt::print(stderr, "item {} k{} d{} c{} run {} budget {}{} states {} {} {:.3f}s at {:.2f}s\n", item,
                     it.kernels, it.depth, it.config, s.runs - 1, s.budget,
                     std::isfinite(s.aspiration) ? fmt::format(" bet {:.2f}", s.aspiration) : "", states,
                     skip ? "skipped" : finished ? "finished" : cut ? "cut" : betLost ? "bet ended" : "stopped",
                     secondsSince(runStarted), secondsSince(start_));
        if (finished) {
          s.finished = true;
          ++finishedItems_;
        } else if (cut) {
          queueLocked(item);
        } else if (betLost && !stopNow()) {
          ++total_.itemBets;
          s.afterBet = true;
          // The top rung ends the bet, and so does a rung that made a
          // template no dearer than the least bound it left: the rungs
          // above would only walk again under a best that this template
          // is about to lower.
          const double cheapest = cheapestTemplate_[static_cast<size_t>(it.kernels - 1)].first;
          if (s.topRung || cheapest <= leastPruned) {
            s.betEnded = true;
          } else {
            // One rung up: still the leader's next run (betAspiration).
            ++s.rungsClimbed;
            s.rungFrom = leastPruned;
          }
          queueLocked(item);
        }
        cv_.notify_all();
      }
      while (!stopNow() && verifyOne()) {
      }
    }
    while (!stopNow() && verifyOne()) {
    }
    flushLocal();
    std::lock_guard lock(mu_);
    ++doneWorkers_;
    cv_.notify_all();
  }

  // A complete template: choose extents by cost, verify, keep.
  void consider(const Plan& plan, int item, int& seq, KernelExtentsMemo& extentsMemo, bool bet) {
    std::string key = planKey(plan);
    // seq counts every template of the run, seen before or not, so that a
    // run repeated with a larger budget numbers its templates as the first
    // run did. A bet skips part of the run, so its numbers are provisional:
    // they sort after every number of the whole run, which replaces them.
    int mySeq = seq++ + (bet ? kBetSeq : 0);
    {
      std::lock_guard lock(mu_);
      auto [it, inserted] = planSeen_.emplace(key, std::make_pair(item, mySeq));
      if (!inserted) {
        if (std::make_pair(item, mySeq) < it->second) it->second = {item, mySeq};
        return;
      }
    }
    std::vector<ExtentChoice> best = chooseExtents(program_, labels_, plan, opt_.limits, cost_, stopFlag_, &extentsMemo);
    const std::vector<int64_t> planTieKey = tieKey(plan);
    {
      std::lock_guard lock(mu_);
      if (!best.empty())
        ++total_.instantiated;
      else
        ++total_.noExtents;
      // The bound must never exceed the cost: a template whose cheapest
      // extents cost less than its bound would have been pruned wrongly.
      if (!best.empty() && best.front().cost < quantizeUs(plan.floorUs) * (1 - 1e-9) - 1e-9) {
        ++total_.boundViolations;
        if (total_.firstBoundViolation.empty())
          total_.firstBoundViolation =
              fmt::format("bound {} > cost {} of\n{}", plan.floorUs, best.front().cost, best.front().text);
      }
    }
    // The guard rule (cli.md, "Numerical safety"): where the input guards
    // its exps, a candidate must guard all of its own. The enumerator builds
    // guarded bodies in that case (body_search.cpp), and this check, on the
    // graph that would be verified, is the one the rule relies on.
    std::vector<char> unguarded(best.size(), 0);
    if (requireGuard_)
      for (size_t i = 0; i < best.size(); ++i) unguarded[i] = !guardsAllExps(best[i].graph);
    std::lock_guard lock(mu_);
    // The cheapest extents the guard rule keeps (best is cheapest first).
    for (size_t i = 0; i < best.size(); ++i) {
      if (unguarded[i]) continue;
      auto& cheapest = cheapestTemplate_[static_cast<size_t>(items_[static_cast<size_t>(item)].kernels - 1)];
      if (best[i].cost < cheapest.first) cheapest = {best[i].cost, items_[static_cast<size_t>(item)].config};
      break;
    }
    bool boundSet = false;
    for (size_t i = 0; i < best.size(); ++i) {
      ExtentChoice& ch = best[i];
      if (unguarded[i]) {
        ++total_.rejectedUnguarded;
        continue;
      }
      if (pendingTexts_.count(ch.text)) continue;
      pendingTexts_.insert(ch.text);
      Pending p;
      p.cost = ch.cost;
      p.kernels = ir::countKernels(ch.graph);
      // Provisional bounds: the cheapest extents the verifier will see
      // bound the search now, as they would once verified (publishFound);
      // the check that rejects one ends this run (verifyOne), and
      // runEngine starts again.
      if (opt_.provisionalBounds && !boundSet) {
        Candidate c;
        c.cost = p.cost;
        c.kernels = p.kernels;
        p.boundedProvisionally = lowerFoundBest(c, planTieKey);
        boundSet = true;
      }
      p.item = item;
      p.seq = mySeq;
      p.planKey = key;
      p.rank.key = planTieKey;
      p.rank.text = std::move(ch.text);
      p.graph = std::move(ch.graph);
      p.origin = describe(plan);
      p.foundAt = Clock::now();
      pending_.push_back(std::move(p));
    }
  }

  // A candidate is worth verifying when no verified one is at least as
  // good in both predicted time and launches (the Pareto front).
  //
  // Ties are broken by the tie key, then the printed text (TieRank), so
  // that which of two equally good candidates survives does not depend on
  // which one a thread happened to verify first: with this strict order,
  // the candidates no other passing candidate dominates are always
  // verified, and the final Pareto filter in run() keeps exactly those,
  // whatever the timing.
  static bool dominates(const Candidate& c, const TieRank& cRank, double cost, int kernels, const TieRank& rank) {
    return c.cost <= cost && c.kernels <= kernels &&
           std::tie(c.cost, c.kernels, cRank) < std::tie(cost, kernels, rank);
  }
  static TieRank inputRank() { return TieRank{{-1}, ""}; }

  bool dominatedLocked(const Pending& p) const {
    if (p.cost > verifiedReachLocked()) return true;
    for (size_t i = 0; i < verifiedList_.size(); ++i)
      if (dominates(*verifiedList_[i], verifiedRanks_[i], p.cost, p.kernels, p.rank)) return true;
    return false;
  }

  // A candidate that a verified one ties in time and launches (and that is
  // not dominated, so it ranks before it) can only change which of the two
  // the run returns: no bound falls by it, only the tie key (lowerBest)
  // sharpens. While work items remain such candidates wait, since a
  // strictly better candidate found later makes them all dominated without
  // a check: a region of a four-layer chain (attention over 1,536 keys)
  // verified twelve three-launch ties, 70 ms each, before its one-launch
  // best came. Once the items are done they are verified, best rank first,
  // so the run returns what it returned when ties were checked at once.
  bool tieOnlyLocked(const Pending& p) const {
    for (const Candidate* c : verifiedList_)
      if (c->cost == p.cost && c->kernels == p.kernels) return true;
    return false;
  }

  // A candidate is checked once it has waited kSettle, or the run that
  // found it has ended (or the thread would otherwise idle, verifyOne's
  // `idle`, or the work items are done): a run often finds a cheaper plan
  // within milliseconds of one (QKNorm+GQA's 12.85 us plan, then its
  // 11.99 us one 20 ms later), which makes the first one's check
  // unnecessary. With provisional bounds the wait delays no bound.
  bool settledLocked(const Pending& p) const {
    return !opt_.provisionalBounds || itemsDone_ || !state_[static_cast<size_t>(p.item)].inFlight ||
           Clock::now() - p.foundAt >= kSettle;
  }
  static constexpr std::chrono::milliseconds kSettle{100};

  // Verifies the most promising pending candidate, if any; false when there
  // was nothing to do.
  //
  // One candidate is verified at a time: the verifier runs on all threads
  // itself, so a second check at once would only halve the speed of the
  // first while the search stood still; the other threads keep searching
  // instead, and the thread that verifies goes on with the next candidate.
  bool verifyOne(bool idle = false) {
    Pending p;
    if (!referencePrepared_) {
      // The first check would evaluate the input too (seconds at the
      // examples' shapes): that comes first, and the candidate is chosen
      // after it among all found by then, not the first one found within
      // milliseconds of the start (Verifier::prepare).
      {
        std::lock_guard lock(mu_);
        if (verifying_ || pending_.empty()) return false;
        verifying_ = true;
      }
      verify::Cancel cancel = checkCancel();
      const auto prepStart = Clock::now();
      verifier_.prepare(cancel);
      if (traceItems_)
        fmt::print(stderr, "prepare {:.3f}s at {:.2f}s\n", secondsSince(prepStart), secondsSince(start_));
      std::lock_guard lock(mu_);
      verifying_ = false;
      if (stopFlag_.load()) return false;
      referencePrepared_ = true;
    }
    {
      std::lock_guard lock(mu_);
      if (verifying_) return false;
      std::erase_if(pending_, [&](const Pending& q) {
        if (!dominatedLocked(q)) return false;
        ++total_.dominated;
        return true;
      });
      // Lowest time, then fewest launches, then best rank: a candidate's
      // dominators come before it in this order (as in fewest launches
      // first), and the cheapest verified first puts the most candidates
      // beyond the front's reach and lowers the bound of every plan
      // soonest (docs/search.md, "Verification"). Of candidates equal in
      // both, the first verified dominates the rest.
      auto order = [](const Pending& x) { return std::tie(x.cost, x.kernels, x.rank, x.item, x.seq); };
      auto it = pending_.end();
      for (auto q = pending_.begin(); q != pending_.end(); ++q) {
        if (opt_.deferTies && !itemsDone_ && tieOnlyLocked(*q)) continue;
        if (it == pending_.end() || order(*q) < order(*it)) it = q;
      }
      if (it == pending_.end() || (!idle && !settledLocked(*it))) return false;
      verifying_ = true;
      p = std::move(*it);
      pending_.erase(it);
      ++total_.prechecked;
    }
    // A running check stops when the search stops (another worker saw the
    // limit or the caller's cancel) or at the time limit itself, so the
    // limit bounds the whole search, verification included.
    struct Done {
      Engine& e;
      ~Done() {
        std::lock_guard lock(e.mu_);
        e.verifying_ = false;
      }
    } done{*this};
    verify::Cancel cancel = checkCancel();
    // A verifier that cannot handle a candidate (an operator it does not
    // know) rejects it rather than ending the run.
    verify::Verdict v;
    const auto checkStart = Clock::now();
    try {
      bool screenedOut = false;
      v = verifier_.screenAndCheck(p.graph, cancel, &screenedOut);
      if (traceItems_)
        fmt::print(stderr, "check item {} cost {:.2f} k{}: {} {:.3f}s at {:.2f}s\n", p.item, p.cost, p.kernels,
                   screenedOut ? "screened out" : v.cancelled ? "cancelled" : v.equivalent ? "equivalent" : "refuted",
                   secondsSince(checkStart), secondsSince(start_));
      if (screenedOut) {
        std::lock_guard lock(mu_);
        ++total_.precheckFailed;
        return !rejectedBound(p);
      }
    } catch (const std::exception& e) {
      v = verify::Verdict{};
      v.equivalent = false;
      v.cancelled = false;
      v.message = fmt::format("the verifier failed on this candidate: {}", e.what());
    }
    if (v.cancelled) {
      std::lock_guard lock(mu_);
      ++cancelledChecks_;
      if (opt_.timeLimitSeconds > 0 && secondsSince(start_) >= opt_.timeLimitSeconds) timedOut_ = true;
      stopFlag_ = true;
      return false;
    }
    if (!v.equivalent) {
      std::lock_guard lock(mu_);
      ++total_.checkFailed;
      if (firstRejection_.empty()) firstRejection_ = v.message;
      return !rejectedBound(p);
    }
    Candidate cand;
    cand.graph = std::move(p.graph);
    cand.kernels = p.kernels;
    cand.cost = p.cost;
    cand.errorBound = v.errorBound;
    cand.origin = p.origin;
    Found f{p.item, p.seq, p.planKey, std::move(p.rank), std::move(cand)};
    publishFound(std::move(f));
    return true;
  }

  // A rejected candidate whose cost bounded the search provisionally may
  // have pruned the best plan: this run ends (with mu_ held), and
  // runEngine begins the search again with verified bounds only.
  bool rejectedBound(const Pending& p) {
    if (!p.boundedProvisionally) return false;
    provisionalFailed_ = true;
    stopFlag_ = true;
    return true;
  }

 public:
  bool provisionalFailed() const { return provisionalFailed_; }

 private:
  verify::Cancel checkCancel() const {
    verify::Cancel cancel;
    cancel.flag = &stopFlag_;
    if (opt_.timeLimitSeconds > 0)
      cancel.deadline = start_ + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opt_.timeLimitSeconds));
    return cancel;
  }

  // The front's reach (Options::frontSlack): a candidate slower than this
  // is off the front whatever its launches. From the best bound (bestAny_,
  // provisional where Options::provisionalBounds is on): what prunes plans.
  double reach() const { return opt_.frontSlack * bestAny_.load(std::memory_order_relaxed); }
  // From the best verified candidate (mu_ held, or the workers done): what
  // drops a waiting candidate unchecked and what the result keeps. A run
  // stopped by its limit before a cheaper template's check returns the
  // front of what it verified (in a complete run the two reaches are
  // equal at the end: every template that bounded the search was verified
  // or is dominated by a verified candidate).
  double verifiedReachLocked() const { return opt_.frontSlack * bestCost_; }

  double threshold(int kernels) const {
    return bestAtMost_[static_cast<size_t>(std::min(kernels, kMaxBoundKernels))].load(std::memory_order_relaxed);
  }

  // A verified candidate bounds every plan with at least its launches,
  // and where it sets the best of its own launch count, it decides the
  // ties of plans with as many (bestKeys_). Called with mu_ held, or
  // before the workers start.
  // Returns whether a bound or tie key moved.
  bool lowerBest(const Candidate& c, const std::vector<int64_t>& key) {
    bool moved = false;
    if (c.cost < bestAny_.load()) bestAny_.store(c.cost), moved = true;
    for (int k = std::max(0, c.kernels); k <= kMaxBoundKernels; ++k) {
      const size_t i = static_cast<size_t>(k);
      const double cur = bestAtMost_[i].load();
      if (c.cost < cur) {
        bestAtMost_[i].store(c.cost);
        bestKeys_[i] = k == c.kernels ? key : std::vector<int64_t>{};
        bestKeyVersion_.fetch_add(1);
        moved = true;
      } else if (c.cost == cur && k == c.kernels && (bestKeys_[i].empty() || key < bestKeys_[i])) {
        bestKeys_[i] = key;
        bestKeyVersion_.fetch_add(1);
        moved = true;
      }
    }
    return moved;
  }
  // lowerBest for a candidate the search found, or a seed (not the input):
  // its reach also bounds the plans (Context::bestFound).
  bool lowerFoundBest(const Candidate& c, const std::vector<int64_t>& key) {
    bool moved = lowerBest(c, key);
    if (c.cost < bestFound_.load()) bestFound_.store(c.cost), moved = true;
    return moved;
  }

  void publish(const Candidate& input) {
    lowerBest(input, inputRank().key);
    inputCandidate_ = input;
    verifiedList_.push_back(&inputCandidate_);
    verifiedRanks_.push_back(inputRank());
    bestCost_ = input.cost;
    if (opt_.onCandidate) opt_.onCandidate(input);
  }

  // A candidate the search did not find: the input, or a seed.
  Candidate given(const ir::Graph& g, const char* origin) const {
    Candidate c;
    c.graph = g;
    c.kernels = ir::countKernels(g);
    c.cost = cost_(g);
    c.errorBound = 0;
    c.origin = origin;
    return c;
  }

  // A seed ranks as the input does (ties go to it); kept in seeds_, whose
  // elements do not move.
  void publishSeed(Candidate seed) {
    const Candidate& c = seeds_.emplace_back(std::move(seed));
    // A seed is a proven program like a found one: its reach bounds the
    // plans as theirs does; the result keeps nothing beyond it either way
    // (verifiedReachLocked()).
    lowerFoundBest(c, inputRank().key);
    verifiedList_.push_back(&c);
    verifiedRanks_.push_back(inputRank());
    bestCost_ = std::min(bestCost_, c.cost);
    if (opt_.onCandidate) opt_.onCandidate(c);
  }

  void publishFound(Found f) {
    std::lock_guard lock(mu_);
    f.cand.foundAtSeconds = secondsSince(start_);
    ++total_.verified;
    if (firstAt_ < 0) firstAt_ = f.cand.foundAtSeconds;
    if (f.cand.cost < bestCost_) {
      bestCost_ = f.cand.cost;
      bestAt_ = f.cand.foundAtSeconds;
    }
    if (opt_.onCandidate) opt_.onCandidate(f.cand);
    lowerFoundBest(f.cand, f.rank.key);
    const TieRank rank = f.rank;
    auto it = byText_.emplace(rank.text, std::move(f)).first;
    verifiedList_.push_back(&it->second.cand);
    verifiedRanks_.push_back(rank);
  }

  const ir::Graph& program_;
  const verify::Verifier& verifier_;
  Options opt_;
  Clock::time_point start_;
  Clock::time_point lastProgress_ = Clock::now();
  ProgramLabels labels_;
  bool requireGuard_ = false;  // the input guards its exps and --allow-unguarded-exp is off
  std::function<double(const ir::Graph&)> cost_;
  std::function<double(const KernelFloor&)> kernelFloor_;
  std::function<double(int, double, int64_t)> launchesFloor_;
  // Per launch count k (capped): the lowest cost of a verified candidate
  // (or, with provisional bounds, of a template waiting for its check)
  // with at most k launches; plans of k kernels whose bound exceeds it are
  // pruned. Candidates with more launches than the cap bound nothing.
  static constexpr int kMaxBoundKernels = 16;
  std::atomic<bool> referencePrepared_{false};  // verifyOne: the verifier's reference is evaluated
  std::array<std::atomic<double>, kMaxBoundKernels + 1> bestAtMost_;
  std::atomic<double> bestAny_;  // the best verified (or provisional) candidate of any launch count
  std::atomic<double> bestFound_;  // ... of those the search found and the seeds (not the input)
  double ioBytes_ = 0;  // inputs the outputs need, read once, and outputs, written once
  std::vector<Item> items_;
  // (kernels, first configuration) -> the lowest pass of it that refused
  // no move for its discrepancy budget; guarded by mu_.
  std::map<std::pair<int, int>, int> saturated_;
  std::vector<ItemState> state_;                         // per item; guarded by mu_
  std::vector<int> previousPass_;  // per item: the item of the same kernels and configuration one pass lower, or -1
  // Per kernel count (index kernels - 1): the items whose next run is to
  // do, and the states its runs used (in-flight ones at their budget).
  std::vector<std::set<int>> queues_;  // mu_
  std::vector<int64_t> used_;                          // mu_
  // Per kernel count: the cheapest template's cost (its cheapest extents)
  // and its item's configuration (scheduleKey).
  std::vector<std::pair<double, int>> cheapestTemplate_;  // mu_
  int inFlight_ = 0;                                     // runs taken and not yet ended; mu_
  size_t finishedItems_ = 0;                             // mu_
  bool traceItems_ = false;                              // MIRAGE_TRACE_ITEMS: one line per run
  std::atomic<bool> stopFlag_{false};
  std::atomic<bool> timedOut_{false};
  int64_t cancelledChecks_ = 0;  // guarded by mu_
  bool verifying_ = false;       // a thread is verifying a candidate; guarded by mu_
  bool provisionalFailed_ = false;  // the verifier rejected a provisional bound (rejectedBound); mu_

  std::mutex mu_;
  // Floor points, one memo for all threads (Context::FloorMemo).
  std::shared_ptr<Context::FloorMemo> floorMemo_ = std::make_shared<Context::FloorMemo>();
  std::shared_ptr<Summands::SharedAnswers> sharedAnswers_ = std::make_shared<Summands::SharedAnswers>();
  // States explored whole, one table for all threads (saturated_states.h).
  std::unique_ptr<SaturatedStates> saturatedStates_ = std::make_unique<SaturatedStates>();
  std::condition_variable cv_;
  int running_ = 0;
  int doneWorkers_ = 0;
  bool itemsDone_ = false;  // every work item finished (mu_): see tieOnlyLocked
  Stats total_;
  double firstAt_ = -1, bestAt_ = -1, bestCost_ = -1;
  Candidate inputCandidate_;
  std::deque<Candidate> seeds_;  // Options::seeds as candidates
  std::map<std::string, std::pair<int, int>> planSeen_;
  std::map<std::string, Found> byText_;
  std::vector<const Candidate*> verifiedList_;  // the input and every verified candidate
  std::vector<TieRank> verifiedRanks_;          // what breaks their ties
  // Per launch count k: the tie key of the candidate that sets
  // bestAtMost_[k] when it has k launches (Context::bestKeyFor), and a
  // version that moves with every change (guarded by mu_).
  std::array<std::vector<int64_t>, kMaxBoundKernels + 1> bestKeys_;
  std::atomic<int> bestKeyVersion_{0};

  std::vector<Pending> pending_;
  std::set<std::string> pendingTexts_;
  std::string firstRejection_;
};

}  // namespace

namespace {

// One engine's search; where the verifier rejected a candidate that had
// bounded the search provisionally (Options::provisionalBounds), the
// search begins again, with the time left, bounded by verified candidates
// only, so that the rejected bound cannot have pruned the best.
Result runEngine(const ir::Graph& program, const verify::Verifier& verifier, const Options& options) {
  auto start = Clock::now();
  Result r;
  {
    Engine engine(program, verifier, options);
    r = engine.run();
    if (!engine.provisionalFailed()) return r;
  }
  const double spent = secondsSince(start);
  Options again = options;
  again.provisionalBounds = false;
  if (options.timeLimitSeconds > 0) again.timeLimitSeconds = std::max(0.01, options.timeLimitSeconds - spent);
  Engine engine(program, verifier, again);
  Result second = engine.run();
  // The counts are the second search's; its times count from the first's start.
  second.stats.provisionalRestarts += 1;
  second.stats.seconds = secondsSince(start);
  if (second.stats.secondsToFirst >= 0) second.stats.secondsToFirst += spent;
  if (second.stats.secondsToBest >= 0) second.stats.secondsToBest += spent;
  for (Candidate& c : second.candidates)
    if (c.foundAtSeconds > 0) c.foundAtSeconds += spent;
  return second;
}

// A program with layout operators (segments.h): each segment searched on its
// own, in order, with a share of the time left in proportion to its number
// of operators (a one-operator segment is searched too: a custom kernel's
// tiling can beat the lowering's, as for a [1, 512] x [512, 512] matmul);
// the best μGraph of each is stitched back and the whole is verified
// against the program. `cut` is the program the segments come from: the
// program itself, or its layout simplification (layout_rewrite.h).
Result searchSegments(const ir::Graph& program, const ir::Graph& cut, const std::vector<Segment>& segments,
                      const verify::Verifier& verifier, const Options& options) {
  auto start = Clock::now();
  auto cost = options.cost ? options.cost : [](const ir::Graph& g) { return estimateCostUs(g); };
  Result result;
  Candidate input;
  input.graph = program;
  input.kernels = ir::countKernels(program);
  input.cost = cost(program);
  input.errorBound = 0;
  input.origin = "input";
  if (options.onCandidate) options.onCandidate(input);
  result.candidates.push_back(input);
  result.best = 0;
  result.stats.exhausted = true;
  result.stats.complete = true;

  std::vector<ir::Graph> best(segments.size());
  std::vector<std::string> origins;
  auto work = [&](size_t k) {
    int n = 0;
    for (const ir::Op& op : segments[k].program.ops) n += op.kind != ir::OpKind::Input && op.kind != ir::OpKind::Const;
    return n;
  };
  double workLeft = 0;
  for (size_t k = 0; k < segments.size(); ++k) workLeft += work(k);
  for (size_t k = 0; k < segments.size(); ++k) {
    Options so = options;
    so.onCandidate = nullptr;
    if (options.timeLimitSeconds > 0) {
      double left = options.timeLimitSeconds - secondsSince(start);
      so.timeLimitSeconds = std::max(0.01, left * work(k) / workLeft);
    }
    workLeft -= work(k);
    verify::Verifier segmentVerifier(segments[k].program, verifier.options());
    Result r = runEngine(segments[k].program, segmentVerifier, so);
    addStats(result.stats, r.stats);
    const Candidate& b = r.candidates[static_cast<size_t>(r.best)];
    best[k] = b.graph;
    origins.push_back(b.origin);
  }
  std::vector<const ir::Graph*> chosen;
  for (const ir::Graph& g : best) chosen.push_back(&g);
  Candidate stitched;
  if (std::string e = stitchSegments(cut, segments, chosen, stitched.graph); e.empty()) {
    // Equivalence is compositional, but the stitched whole is what will be
    // written: it is verified whole like every other candidate.
    verify::Verdict v = verifier.check(stitched.graph);
    if (v.equivalent) {
      stitched.kernels = ir::countKernels(stitched.graph);
      stitched.cost = cost(stitched.graph);
      stitched.errorBound = v.errorBound;
      stitched.origin = fmt::format("{} segments between layout ops: {}", segments.size(), fmt::join(origins, "; "));
      stitched.foundAtSeconds = secondsSince(start);
      stitched.id = 1;
      if (options.onCandidate) options.onCandidate(stitched);
      bool better = std::tie(stitched.cost, stitched.kernels) < std::tie(input.cost, input.kernels);
      result.candidates.push_back(std::move(stitched));
      if (better) result.best = 1;
    } else if (result.stats.firstRejection.empty()) {
      result.stats.firstRejection = v.message;
    }
  }
  result.stats.seconds = secondsSince(start);
  result.stats.bestCost = result.candidates[static_cast<size_t>(result.best)].cost;
  return result;
}

}  // namespace

void addStats(Stats& to, const Stats& s) {
  to.states += s.states;
  to.pruned += s.pruned;
  to.duplicates += s.duplicates;
  to.deferred += s.deferred;
  to.itemRuns += s.itemRuns;
  to.itemsCut += s.itemsCut;
  to.itemsExtended += s.itemsExtended;
  to.itemBets += s.itemBets;
  to.templates += s.templates;
  to.instantiated += s.instantiated;
  to.noExtents += s.noExtents;
  to.dominated += s.dominated;
  to.unverified += s.unverified;
  to.prechecked += s.prechecked;
  to.precheckFailed += s.precheckFailed;
  to.checkFailed += s.checkFailed;
  to.provisionalRestarts += s.provisionalRestarts;
  to.rejectedUndefined += s.rejectedUndefined;
  to.rejectedUnguarded += s.rejectedUnguarded;
  to.verified += s.verified;
  to.prunedByBound += s.prunedByBound;
  to.itemsPrunedByBound += s.itemsPrunedByBound;
  to.boundViolations += s.boundViolations;
  if (to.firstBoundViolation.empty()) to.firstBoundViolation = s.firstBoundViolation;
  to.timedOut = to.timedOut || s.timedOut;
  to.exhausted = to.exhausted && s.exhausted;
  to.complete = to.complete && s.complete;
  auto rank = [](const std::string& e) {
    return e == "exhausted" ? 0 : e == "bound" ? 1 : e == "time_limit" ? 2 : e == "cancelled" ? 3 : -1;
  };
  if (rank(s.endedBy) > rank(to.endedBy)) to.endedBy = s.endedBy;
  if (to.firstRejection.empty()) to.firstRejection = s.firstRejection;
}

Result runSearch(const ir::Graph& program, const verify::Verifier& verifier, const Options& options) {
  // Layout simplification first: it removes the concats it can, so that
  // fewer cuts remain. The stitched result is verified against `program`
  // whole, so a wrong rewrite costs a candidate, never a wrong answer.
  ir::Graph simplified;
  bool useSimplified = false;
  if (simplifyLayout(program, simplified)) {
    for (const ir::Op& op : simplified.ops) useSimplified = useSimplified || ir::isLayoutOp(op.kind);
  }
  const ir::Graph& cut = useSimplified ? simplified : program;
  std::vector<Segment> segments = splitAtLayoutOps(cut);
  if (!segments.empty()) return searchSegments(program, cut, segments, verifier, options);
  return runEngine(program, verifier, options);
}

}  // namespace mirage::search
