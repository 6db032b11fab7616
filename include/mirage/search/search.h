// The search component owns the superoptimizer proper: from a program of
// pre-defined operators it enumerates μGraphs (sequences of custom kernels
// whose block-level bodies tile the program's tensors over a grid and a
// for-loop), prunes every partial graph whose new tensor cannot be part of an
// output under the algebraic axioms of abstract expressions (search/expr.h),
// instantiates each complete template with the grid and for-loop extents its
// cost ranks best within the shared-memory budget, and hands every complete
// candidate to the verifier; only verified candidates leave the search.
// docs/search.md describes the space, the canonical order, the pruning and
// what optimality the axioms imply.
#pragma once

#include <cmath>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::verify {
class Verifier;
}

namespace mirage::search {

// Changes whenever the search may return another result for the same
// program and limits (the space, the tie order): part of the result
// cache's key, so that an entry an older search wrote is a miss. 2: ties
// go first to fewer off-program values (docs/search.md, "Ties"). 3: a
// program that falls apart is searched by its parts, merged (docs/search.md,
// "Independent parts"). 4: the front keeps only candidates within
// kFrontSlack of the best (docs/search.md, "The front's reach"). 5: a body
// may contract the unit label where the program does (an outer product).
// 6: a move's legality no longer depends on the state that first asked for
// it, and the seen-set no longer merges budgets (seen_states.h).
// 7: predicted times rank at kCostResolutionUs, and a contraction's
// operand is charged to the kernels that read its partner (operand_flow.h).
inline constexpr int kSearchRevision = 7;

// Predicted times are ranked at this resolution (0.1 ns): a difference
// below it is not information the model has, and plans that close are ties,
// decided by the tie key (docs/search.md, "Ties"). The driver's cost is the
// model's time rounded down to it (driver::modelCost); lower bounds are
// compared rounded down the same way (Context::beaten), which keeps them
// bounds of the rounded costs (rounding down is monotone). A cost given
// unrounded is bounded as before, by a bound a little lower.
inline constexpr double kCostResolutionUs = 1e-4;
inline double quantizeUs(double us) {
  // The nudge makes a rounded time round to itself (its product with the
  // scale may fall just under the integer it stands for); what matters
  // for the bounds is that the map is monotone, which it is.
  constexpr double kScale = 1 / kCostResolutionUs;
  return std::floor(us * kScale + 1e-6) / kScale;
}

// Bounds of the space. They are part of the result cache's key.
struct Limits {
  int maxKernels = 3;             // custom kernels per μGraph
  int maxBlockOps = 20;           // operators per kernel body (tiles and saves excluded)
  int maxDiscrepancies = 8;       // body values per plan that are not terms of the input program
  int maxGridDims = 3;
  int64_t smemBytesPerBlock = 227 * 1024;  // shared memory one block may use (the driver sets the target's)
  int maxCandidatesPerTemplate = 1;       // extent choices verified per body
  // Let candidates drop an overflow guard of the input (--allow-unguarded-exp;
  // search/guard.h): when false and the input guards its exps, only
  // candidates that guard theirs are kept.
  bool allowUnguardedExp = false;
};

// The work every completion of a partial kernel does at least, at one
// choice of its grid and for-loop extents (docs/search.md, "Bounds"): the
// tiles it has loaded so far (and, for the last kernel, the inputs it must
// still load and the outputs it saves), with no operator work. The terms
// are the cost model's (backend::KernelFloor); the driver passes the
// backend's formula for them.
struct KernelFloor {
  int64_t blocks = 1;
  int64_t forloop = 1;
  double dramBytes = 0;       // device-memory bytes read and written, whole kernel
  double blockLoadBytes = 0;  // bytes one block loads and stores
  double blockSmemBytes = 0;  // shared-memory traffic of one block
  int64_t smemPerBlock = 0;   // shared memory one block holds
  // Operator work of one block: matmul FLOPs (tensor cores allowed when
  // the dtype is not f32), and elements per operator kind (a rescaled
  // accum as its multiply, add, sub and exp), at the model's FLOPs per
  // element.
  double blockMatmulFlops = 0;
  bool tensorCores = false;
  std::vector<std::pair<ir::OpKind, double>> blockElements;
};

// A candidate predicted this many times slower than the best is not worth
// keeping: without a GPU the cheapest predicted wins; with one the driver
// measures the cheapest predicted few (ranking.cpp), and this is the margin
// left for the model's error until it is calibrated on hardware
// (docs/cost-model.md, "Calibration": a GPU run's report gives the spread).
inline constexpr double kFrontSlack = 2.0;

struct Options {
  Limits limits;
  double timeLimitSeconds = 0;  // 0 = none; the caller's deadline for the whole search
  int jobs = 1;
  uint64_t seed = 0;
  // Ranks an instantiated candidate (smaller is better); the driver passes the
  // backend's cost model. When empty, search::estimateCostUs is used.
  std::function<double(const ir::Graph&)> cost;
  // Lower bounds of `cost` for branch and bound: the least a kernel doing
  // at least a KernelFloor's work costs, and the least `launches` kernels
  // that together move `dramBytes` cost. They must never exceed `cost` of
  // a graph that does at least that work (test/search/bound_test.cpp
  // checks it on every candidate of the examples). When `cost` is empty,
  // the bounds of estimateCostUs are used; when `cost` is given without
  // them, nothing is pruned by bound.
  std::function<double(const KernelFloor&)> kernelFloor;
  // `loopSteps`: one of the launches has a for-loop of at least that many
  // steps (1: nothing known).
  std::function<double(int launches, double dramBytes, int64_t loopSteps)> launchesFloor;
  // Called (from any thread, serialized) for each verified candidate.
  std::function<void(const struct Candidate&)> onCandidate;
  // Called about once a second with the statistics so far.
  std::function<void(const struct Stats&)> onProgress;
  const std::atomic<bool>* cancel = nullptr;  // set by the caller to stop early
  // Where the guard rule applies, the enumerator builds only guarded exps.
  // false (tests): it builds exps as an unguarded search does, and the rule
  // rejects the complete candidates instead (counted in rejectedUnguarded).
  bool guardInEnumerator = true;
  // States the first run of every work item may visit before it is cut and
  // put back with four times the budget (docs/search.md, "Scheduling");
  // 0: the search's own budgets. Tests set it to exercise the cuts.
  int64_t itemBudgetStates = 0;
  // The next pass of the configuration that leads the front runs first as
  // a bet on a plan well below the best so far (docs/search.md,
  // "Scheduling", the leader's bet). Off (tests): it runs whole, as before.
  bool leaderBets = true;
  // The bet climbs from just above the least bound it pruned: each run's
  // aspiration an eighth of the way from there to the best, until the
  // halfway one (docs/search.md, "Scheduling", the bet's rungs). Off
  // (tests): the halfway aspiration at once, as before.
  bool betRungs = true;
  // A template bounds the search as soon as it is found, before the
  // verifier has checked it (docs/search.md, "Provisional bounds"): were
  // one that lowered a bound rejected, the search starts again with
  // verified bounds only (Stats::provisionalRestarts), so what a complete
  // run returns does not change. Off (tests): bounds wait for the verifier.
  bool provisionalBounds = true;
  // Tests compare with these off (docs/search.md, "Needed operators",
  // "Barren searches" and "Ties wait"): none changes what the search returns.
  bool pruneUnreachable = true;  // drop last-kernel states that cannot complete within the operators left
  bool skipBarren = true;        // skip a search after a closed kernel that emitted nothing before
  bool skipSaturatedStates = true;  // skip a state whose subtree an earlier pass explored whole
  bool skipLoopsWithoutAccumulator = true;  // no body search for a loop no accumulator can sum over
  bool refuseSumsOverUnsummedLabels = true;  // no sum or maximum over a label the program never reduces
  bool deferTies = true;         // verify candidates that only break a tie once the work items are done
  bool chargeSumsStillToMake = true;  // the bound's term for sums a needed argument still lacks
  // Tests: under the guard, a softmax's label is accumulated only with its
  // running maximum and a kernel that splits it saves only rescaled sums
  // (docs/search.md, "Guarded partials"); off, both as before.
  bool guardedSplitRules = true;
  // The bound's loop over guarded partials (the kernel that reads them has
  // as many steps as the blocks that wrote them); needs guardedSplitRules
  // for the states before a close.
  bool chargePartialLoops = true;
  // The bound's term for the exps a kernel must still make under the guard
  // (docs/search.md, "Exps still to make"); off, as before.
  bool chargeExpsStillToMake = true;
  // The bound's floor of the last kernel, charged to the states of the
  // kernel before it where every exp is still to make (docs/search.md,
  // "The last kernel before it begins"); off, a launch and two round trips
  // as before.
  bool chargeLastKernel = true;
  // The bound's case split for such a kernel that may make the exps
  // itself: each state is bounded both where it makes them (charged to it)
  // and where the last kernel does (that kernel's floor), and pruned where
  // both are beaten (docs/search.md, "Exps here or in the last kernel");
  // off, only kernels that can make none are charged the last kernel's
  // floor, as before.
  bool splitExpCases = true;
  // The bound's term for the values an intermediate kernel's completions
  // must still read (docs/search.md, "Bounds"); off, tiles only, as before.
  bool chargeUnreadValues = true;
  // The bound's term for the values of a contraction's operand that the
  // kernels reading its partner input must read (docs/search.md, "The
  // operand a contraction's partner needs"); off, as before.
  bool chargeOperandFlow = true;
  // The bound's tiles of what the exps' argument is made of, where a
  // kernel makes the exps (docs/search.md, "The exps' argument read"); off,
  // as before.
  bool readExpArguments = true;
  // The last kernel's floor, where it makes the exps after kernels not yet
  // known, with a tile of what their argument is made of: the pairing
  // made, or each operand's input-dependent part (docs/search.md, "The
  // argument a last kernel makes the exps of"); off, V's tiles alone, as
  // before.
  bool lastMakesFromArgument = true;
  // The bound's tile of the exps in a last kernel that reads them from the
  // kernel before it (docs/search.md, "The exps a last kernel reads"); off,
  // their bytes alone, as before.
  bool lastReadsExpTiles = true;
  // The bound of an intermediate kernel with more than four inputs open
  // (read here or left to the kernels after it) takes each choice of the
  // flow inputs (a softmax's V) and the least of the others'
  // (docs/search.md, "Flow inputs decided"); off, the least of every
  // choice, as before.
  bool decideFlowInputs = true;
  // The bound's floor of the two kernels after a first kernel of three
  // that makes no exp (docs/search.md, "The two kernels after a first
  // kernel of three"); off, two launches and their round trips, as before.
  bool chargeTwoKernelFuture = true;
  // Tests: a state's bound starts at the first extent choice its nearest
  // checked ancestor found not beaten (docs/search.md, "Bounds"); off, at
  // the first. Either way the same states are pruned.
  bool resumeAncestorWalks = true;
  // Tests: a template's bound (Stats::boundViolations) is the largest of
  // the bounds of the last kernel's states on the way to it, not only its
  // own, so that the terms of partial bodies are checked against the cost.
  bool checkAncestorBounds = false;
  // Tests: states are not pruned by their bounds (only checked, with
  // checkAncestorBounds), so that the bound of every state on the way to
  // every template of a space is compared with the template's cost.
  bool pruneByBound = true;
  // Programs equivalent to the input that the caller has proven (a region's
  // independent parts, each searched alone and stitched): candidates from
  // the start like the input, so that the bound prunes what they dominate;
  // a plan that ties one loses, as it would lose to the input. Origin
  // "seed". The search does not check them: the caller must.
  std::vector<ir::Graph> seeds;
  // The front the search keeps (docs/search.md, "The front's reach"): a
  // candidate the model predicts more than this many times slower than the
  // best verified one is off it, whatever its launch count, and a plan
  // whose bound exceeds that is pruned. Infinity: the whole Pareto front
  // of (predicted time, launches), as tests compare.
  double frontSlack = kFrontSlack;
};

struct Stats {
  int64_t states = 0;         // partial graphs explored
  int64_t pruned = 0;         // extensions rejected by the abstract-expression test
  int64_t prunedByBound = 0;  // partial plans whose lower bound is worse than a verified candidate
  int64_t itemsPrunedByBound = 0;  // work items skipped whole: their kernels cost more than a verified candidate
  // Templates whose cheapest extents cost less than their lower bound: 0
  // unless the bounds are wrong (tests check it; the first one's text).
  int64_t boundViolations = 0;
  std::string firstBoundViolation;
  int64_t duplicates = 0;     // extensions rejected by the canonical order or the seen-set
  int64_t deferred = 0;       // extensions left to a later pass (more discrepancies)
  int64_t itemRuns = 0;       // runs of work items (docs/search.md, "Scheduling"), the cut ones included
  int64_t itemsCut = 0;       // runs cut by their state budget (the item runs again with a larger one)
  int64_t itemsExtended = 0;  // runs that reached their budget with no other run waiting, so went on
  int64_t itemBets = 0;       // the leader's bets (each rung) that left states to a later run (docs/search.md, "Scheduling")
  int64_t templates = 0;      // complete bodies found
  int64_t instantiated = 0;   // templates with legal extents within the shared-memory budget
  int64_t noExtents = 0;      // templates without legal extents
  int64_t dominated = 0;      // not verified: a verified candidate is as fast with as few launches
  int64_t unverified = 0;     // still waiting for the verifier when the search stopped
  int64_t prechecked = 0;     // candidates that reached the verifier
  int64_t precheckFailed = 0;
  int64_t checkFailed = 0;
  // Searches begun again because the verifier rejected a candidate whose
  // cost had bounded the search provisionally (Options::provisionalBounds).
  int64_t provisionalRestarts = 0;
  // Rejected by the numerical-safety rules of ../shared/spec/cli.md (counted
  // by whoever applies them: the verifier's definedness check, the guard rule):
  int64_t rejectedUndefined = 0;  // divides, or takes sqrt/rsqrt/log, where it is not provably defined
  int64_t rejectedUnguarded = 0;  // drops an overflow guard of the input's exp
  int64_t verified = 0;
  double seconds = 0;
  double secondsToFirst = -1;
  double secondsToBest = -1;
  double bestCost = -1;
  bool timedOut = false;
  bool exhausted = false;     // every work item ran to its end (= complete)
  // The search ran to its end (not stopped by the time limit or a cancel):
  // every plan within the limits was explored or pruned by bound.
  bool complete = false;
  // "exhausted" (complete, nothing pruned by bound), "bound" (complete, some
  // plans pruned by bound), "time_limit", or "cancelled" (Options::cancel).
  std::string endedBy;
  std::string firstRejection; // the verifier's message for the first candidate it rejected
};

// Adds the stats of one search (a segment's, a region's) into a total: counts
// summed, `exhausted` and `complete` only if both are, and the least
// conclusive ending kept (exhausted < bound < time_limit < cancelled; an
// empty total takes the other's). Start a total with exhausted and complete
// true.
void addStats(Stats& total, const Stats& s);

struct Candidate {
  int id = 0;            // order of discovery in a deterministic run
  ir::Graph graph;       // verified μGraph (program names kept)
  int kernels = 0;       // kernel launches
  double cost = 0;       // from Options::cost
  double errorBound = 1; // the verifier's bound
  double foundAtSeconds = 0;
  std::string origin;    // "input" or a short description of the template
};

struct Result {
  std::vector<Candidate> candidates;  // every verified candidate, in deterministic order
  int best = -1;                      // index into candidates
  Stats stats;
};

// Runs the search on `program` (already checked). The input program itself
// is always candidate 0 (lowered one kernel per operator).
Result runSearch(const ir::Graph& program, const verify::Verifier& verifier, const Options& options);

// The built-in estimate used when no cost model is given: launches, bytes
// moved through device memory (replicated tile loads counted per block) and
// FLOPs, in microseconds on an H100-class GPU (docs/search.md).
double estimateCostUs(const ir::Graph& program);

// Lower bounds of estimateCostUs, in the terms of Options::kernelFloor and
// Options::launchesFloor.
double estimateKernelFloorUs(const KernelFloor& floor);
double estimateLaunchesFloorUs(int launches, double dramBytes, int64_t loopSteps = 1);

}  // namespace mirage::search
