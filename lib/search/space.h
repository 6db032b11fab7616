// Internal data structures of the search: index labels, kernel templates
// (a custom kernel's body with symbolic grid and for-loop extents) and the
// per-thread search context.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/search/expr.h"
#include "mirage/search/search.h"
#include "expr_prints.h"
#include "summands.h"
#include "small_vec.h"

namespace mirage::search {

class SaturatedStates;  // saturated_states.h

// A dim label says which loop index of the program a tensor dim runs over.
// 0 is a unit dim (extent 1 or reduced away). Classes 1..N come from the
// program (labels.cpp); a *partial* label stands for the blocks of a grid
// axis that split a reduction, and a composite label (inner | partial << 16)
// marks a dim into which those blocks wrote their partial results side by
// side.
using Label = int32_t;
using Labels = std::vector<Label>;
inline constexpr Label kUnit = 0;
inline Label innerOf(Label l) { return l & 0xffff; }
inline Label partialOf(Label l) { return l >> 16; }
inline Label composite(Label inner, Label partial) { return inner | (partial << 16); }

// Where a contraction's operand must flow (operand_flow.h): an output
// A · B with B the program input `partner`, A a function of the input
// `source` that varies with each of its elements once some statistics of
// it are fixed; A's degrees of freedom are at least `share` of the
// source's elements (its elements less the statistics' values).
struct OperandFlow {
  int partner = -1;
  int source = -1;
  double share = 1;
};

struct ProgramLabels {
  std::vector<Labels> ofValue;    // per program value, per dim
  std::vector<int64_t> extent;    // per class label (index 0 = unit, extent 1)
  std::vector<char> inOutput;     // class appears in an output's labels
  std::vector<char> reduced;      // the program sums (or maximizes) over this class somewhere
  // The program has a matmul whose contracted dim has extent 1 (an outer
  // product): a body may contract the unit label too, or no plan could
  // make that matmul's value (the program's kinds have no broadcast mul).
  bool contractsUnit = false;
  int numClasses = 0;             // labels 1..numClasses are classes
};
ProgramLabels analyzeLabels(const ir::Graph& program);
// The label a program-level reduction or contraction runs over (its
// operand's dim, a matmul's last dim of the first operand); kUnit for
// every other operator.
Label programReducedLabel(const ir::Op& op, const ProgramLabels& labels);

// A tensor of the program level that a kernel can take as an argument.
struct Tensor {
  ir::Shape shape;  // under the representative extents
  Labels labels;
  ExprId expr = -1;
  int kernel = -1;  // producing kernel in the plan, -1 for a program input
  int index = 0;    // program input index, or result index of its kernel
  // Guarded split reductions: partial sums that kernel rescaled to its own
  // running maximum name the tensor holding those maxima; a later kernel
  // combines them only with exp(m_j - M) weights (body_search.cpp).
  int maxTensor = -1;
};

struct GridAxis {
  Label label = 0;
  bool split = false;  // a reduction label whose per-block partial results are saved
};

// One body operator; its result is body value number (index in ops).
struct BodyOp {
  ir::OpKind kind = ir::OpKind::Tile;
  int in0 = -1, in1 = -1;
  int dim = 0, dim1 = 0;
  Label reduceToInner = -1;    // reduce_sum of a composite dim to its inner label's extent (size=)
  bool hasScalar = false;      // binary op with a number as second operand
  bool scalarFirst = false;    // ... as first operand instead (c - x, c / x)
  bool accumMax = false;       // Accum: op=max (in1 >= 0 on an Accum: rescale=in1, a scan)
  // The guard's composite moves (exp(s - m), a weighted accum) are ordered
  // by the operand they were asked for, not by their hidden intermediates:
  // the canonical order compares (logical0, -1) when logical0 >= 0.
  int logical0 = -1;
  Rational scalar;
  int arg = -1;  // Tile: index of the kernel argument (in KernelTemplate::args)
  ir::DimMap imap = ir::kEmptyMap;  // Tile
  int fmap = -1;                    // Tile
  // Not a tile, and its value is none of the program's own terms up to a
  // constant (Context::preferred): a function of the operator and its
  // operands, counted first in the tie key (tie_key.h).
  bool offProgram = false;
};

struct KernelTemplate {
  std::vector<GridAxis> grid;
  Label loop = kUnit;      // for-loop label; kUnit = no for-loop (forloop 1)
  std::vector<int> args;   // tensor ids (into Plan::tensors)
  std::vector<BodyOp> ops;
  std::vector<int> saved;  // body values saved, in result order
  std::vector<ir::DimMap> savedOmap;  // per saved value, grid axis -> result dim
  std::vector<char> savedF32;         // per saved value: save(..., dtype=f32)
  // Whether result s is saved as f32 (not the program's type); results
  // saved before savedF32 was filled in are not.
  bool resultF32(size_t s) const { return s < savedF32.size() && savedF32[s]; }
};

// A μGraph template: the kernels in order and the tensors they see.
struct Plan {
  std::vector<Tensor> tensors;  // program inputs first, then kernel results in order
  std::vector<KernelTemplate> kernels;
  std::vector<int> outputs;     // tensor id of each program output
  // Per partial label (index 0 unused): the kernel and grid axis whose blocks
  // it counts.
  std::vector<std::pair<int, int>> partialAxis{{-1, -1}};
  // A complete plan's lower bound (all its kernels, every operator), or 0
  // without one: search.cpp checks it against the cost of its extents.
  double floorUs = 0;
  // Whether tensor t is a kernel's result saved as f32.
  bool savedF32(const Tensor& t) const {
    return t.kernel >= 0 && kernels[static_cast<size_t>(t.kernel)].resultF32(static_cast<size_t>(t.index));
  }
};

// Extents of one instantiation: per kernel, blocks per grid axis and the
// for-loop count.
struct Extents {
  std::vector<std::vector<int64_t>> parts;
  std::vector<int64_t> forloop;
};

// Builds the ir::Graph of a plan through the checked builders; returns the
// error when the extents are illegal. With `onlyKernel` >= 0 only that
// kernel is built, its arguments as the graph's inputs (at the shapes the
// extents give them) and its results as the outputs: the kernel's legality,
// shared memory and cost do not depend on the other kernels' extents except
// through those shapes (see search.cpp, Engine::consider).
std::string instantiate(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                        const Extents& extents, ir::Graph* out, int onlyKernel = -1);

// A template's extents chosen by cost, instantiated.
struct ExtentChoice {
  double cost = 0;
  std::string text;  // printed graph
  ir::Graph graph;
};

// A memo key of raw bytes: a tag before each field and a count before each
// list keep it unambiguous. The search builds such keys for every new body
// search (floor points, kernel extents, barren searches), where formatting
// them as text cost a tenth of the time.
struct MemoKey {
  std::string bytes;
  // Scalars and arrays of scalars only: a struct's padding would enter the key.
  template <typename T>
  MemoKey& put(const T& x) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes.append(reinterpret_cast<const char*>(&x), sizeof x);
    return *this;
  }
  template <typename List>
  MemoKey& putAll(const List& xs) {
    put(static_cast<uint64_t>(xs.size()));
    for (const auto& x : xs) put(x);
    return *this;
  }
};

// One kernel's cheapest extents of its own (grid axes that split no
// reduction, and the for-loop) and their costs, per kernel as chooseExtents
// finds them; kept across the templates of one search, which share
// kernels (three-kernel plans of softcap attention, most of them). Keyed by
// everything a kernel instantiated alone depends on (extents.cpp,
// kernelKey); valid for one program, one cost function and one `Limits`.
struct KernelExtentsMemo {
  struct Winner {
    double cost = 0;
    std::vector<int64_t> parts;
    int64_t forloop = 1;
  };
  std::unordered_map<std::string, std::vector<Winner>> winners;
  int64_t hits = 0;  // kernels answered from the memo
};

// The `limits.maxCandidatesPerTemplate` cheapest legal instantiations of a
// plan within the shared-memory budget, cheapest first (extents.cpp);
// empty when it has none or `stop` was set. With a memo, each kernel's
// own winners are looked up there first.
std::vector<ExtentChoice> chooseExtents(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                                        const Limits& limits, const std::function<double(const ir::Graph&)>& cost,
                                        const std::atomic<bool>& stop, KernelExtentsMemo* memo = nullptr);

// The block counts a grid axis (or the for-loop) may take over an extent of
// n: divisors that are powers of two or leave a power-of-two tile.
std::vector<int64_t> divisorsOf(int64_t n, bool includeOne);

// The shape of plan tensor `tensor` under the given extents.
ir::Shape tensorShape(const ir::Graph& program, const ProgramLabels& labels, const Plan& plan,
                      const Extents& extents, int tensor);

// A tensor a kernel must save, for its lower bound: its labels (a partial
// dim of the kernel's own split counts one entry per block) and bytes per
// element.
struct FloorSave {
  Labels labels;
  int bytes = 2;
};

// An operator with a number operand: its kind and the number, in lowest
// terms. Every search state walks these lists, so they are vectors, kept in
// (kind, numerator, denominator) order without repeats (addNumberOp).
struct NumberOp {
  ir::OpKind kind;
  Rational value;
};
using NumberOps = std::vector<NumberOp>;
inline void addNumberOp(NumberOps& ops, ir::OpKind kind, Rational value) {
  auto key = [](const NumberOp& o) { return std::tuple(o.kind, o.value.num, o.value.den); };
  NumberOp op{kind, value};
  auto at = std::lower_bound(ops.begin(), ops.end(), op,
                             [&](const NumberOp& a, const NumberOp& b) { return key(a) < key(b); });
  if (at == ops.end() || key(*at) != key(op)) ops.insert(at, op);
}

struct Context;

// Lower bounds of a kernel with this grid and for-loop whose body tiles at
// least `tiles` (plan tensor ids, ascending) and saves at least `saves`
// (floor.cpp): per extent choice of chooseExtents whose tiles fit the
// shared-memory budget, the tiles' and saves' work and its
// Context::kernelFloor, cheapest first (empty when none fits); the body's
// operators are added by the caller. `newPartial`: the partial label of
// this kernel's own split, if it has one (else 0).
struct FloorPoint {
  SmallVec<int64_t, 3> parts;  // blocks per grid axis (x, y, z)
  int64_t forloop = 1;
  KernelFloor work;            // tiles and saves only
  double us = 0;               // Context::kernelFloor(work)
};
// The cheapest points of one key, cheapest first, and a floor under the
// rest: a state's bound nearly always stops within the first few points
// (GQA, 3.07M bounds: 3.03M within 64), while a key has a few
// hundred, so the memo keeps kMostKept of them (about four times the keys
// in the same memory) and a caller that gets past them asks for the whole
// list (`complete` of kernelFloorPoints), which the memo does not keep.
struct FloorPointList {
  static constexpr size_t kMostKept = 64;
  std::vector<FloorPoint> points;
  // Every point left out costs at least this; infinity when none was.
  double restUs = std::numeric_limits<double>::infinity();
  bool truncated() const { return restUs < std::numeric_limits<double>::infinity(); }
};
// Shared: a body search keeps the points of each tile set it asked for
// without copying them (each point owns vectors), and a clear of the memo
// does not take them away from it.
using FloorPoints = std::shared_ptr<const FloorPointList>;
FloorPoints kernelFloorPoints(Context& ctx, const Plan& plan, const std::vector<GridAxis>& grid, Label loop,
                              const std::vector<int>& tiles, const std::vector<FloorSave>& saves, Label newPartial,
                              bool complete = false);

// Per-thread search state.
struct Context {
  const ir::Graph* program = nullptr;
  const ProgramLabels* labels = nullptr;
  const Limits* limits = nullptr;
  ExprTable exprs;
  std::vector<ExprId> targets;    // per program output
  // What a body value must be a subexpression of (prune): the targets, and
  // without the guard the arguments of the program's exps, which the normal
  // form splits (exp(a + b) = exp(a)·exp(b)) so that the sum itself, and
  // the values that build it, are in no target.
  std::vector<ExprId> pruneTargets;
  std::vector<ExprId> fixArgs;    // exact arguments that values may be scaled/shifted to
  std::set<ir::OpKind> kinds;     // operator kinds of the program
  // The same, split as every state tries them (initContext, from kinds):
  // walking a std::set in the innermost loops cost about 1 % of a search.
  std::vector<ir::OpKind> unaryKinds;   // element-wise unary, in kind order
  std::vector<ir::OpKind> binaryKinds;  // element-wise binary and matmul, in kind order
  bool hasSquare = false, hasReduceMax = false;
  // The program's commutative binary operators with a number operand other
  // than the scale and shift that fixes make (maximum(x, 0), minimum(x, 6)):
  // a body may apply them to any value.
  NumberOps scalarOps;
  // The program's scales and shifts by a number (mul(x, 0.044715),
  // add(1, x); div and sub by a number normalized to them): a body applies
  // one only where its result is exactly one of the program's values, since
  // the abstract-expression test cannot tell coefficients apart and any
  // scale of a sub-term passes it.
  NumberOps numberOps;  // Mul or Add
  // The program's c - x and c / x (Sub or Div, c), applied as numberOps
  // are: only where the result is exactly one of the program's values.
  NumberOps numberFirstOps;
  // The program's values' expressions, exact: a flag per ExprId (asked for
  // every number operator in every state, so no hashing).
  std::vector<char> programValue;
  bool isProgramValue(ExprId e) const {
    return e >= 0 && static_cast<size_t>(e) < programValue.size() && programValue[static_cast<size_t>(e)];
  }
  // The guard rule is on (search/guard.h): exp is built only as
  // exp(s - m) with m a maximum of s over a dim the program maximizes
  // (maxLabels), a running maximum (scan) where the for-loop walks that dim.
  bool guard = false;
  std::set<Label> maxLabels;
  // The labels of the argument of each exp of the program (its scores'
  // labels, for a softmax): a body makes an exp only at the program's
  // scale, so of an argument equal to one of these up to scale
  // (BodySearch::expsStillToMake).
  std::vector<std::vector<Label>> expArgLabels;
  // Per exp of the program, the pairings its argument is made of: a
  // matmul of the program below it that contracts label `contracted`,
  // an input one of whose operands depends on with that label, and the
  // matmul's labels. A body that makes the exp reads a tensor that gives
  // each pairing (BodySearch::initExpArgCarriers).
  struct ExpArgSource {
    int input = 0;
    Label contracted = kUnit;
    std::vector<Label> paired;  // the matmul's result's labels
    // In expArgResults of its exp: the pairing made (the matmul's result),
    // and the operand's dependence on the input (its value, with those of
    // its labels the input has), as results of kernels still to come
    // (BodySearch::lastKernelFloorFromArgument).
    int pairingResult = -1, operandResult = -1;
  };
  std::vector<std::vector<ExpArgSource>> expArgSources;
  struct ExpArgResult {
    std::vector<Label> labels;
    ExprId expr = -1;
  };
  std::vector<std::vector<ExpArgResult>> expArgResults;  // per exp, each once
  // Per exp of the program, its value (with expArgLabels' labels): what a
  // kernel that saves the exps holds, as a tensor the last kernel reads
  // (BodySearch::lastKernelFloor).
  std::vector<ExprId> expValues;
  // Every exp atom of the program's values with the magnitude of each
  // exponent it has there (exp(30·t) is exp(t)^30). A body makes an exp
  // only at one of these scales (expAtProgramScale): exp(t) alone reaches
  // exp(t)^30 only through products, each an operator more than scaling t
  // first (docs/search.md, "Exps at the program's scale").
  std::set<std::pair<AtomId, Rational>> programExpPowers;
  // Every program value's expression, and per expression whether it is a
  // sum whose coefficients are in the ratios of a sub-sum of one of them
  // (ExprTable::isRatioSubsum; 0 no, 1 yes, -1 not asked yet).
  std::vector<ExprId> programValues;
  std::vector<int8_t> ratioMemo;
  bool ratioConsistent(ExprId e);
  bool expAtProgramScale(ExprId e) const {
    if (programExpPowers.empty()) return true;
    for (const Monomial& m : exprs.poly(e).terms)
      for (const Factor& f : m.factors)
        if (exprs.atom(f.atom).kind == AtomKind::Exp &&
            !programExpPowers.count({f.atom, abs(f.exponent)}))
          return false;
    return true;
  }
  // The program transposes a tensor: a tile may be transposed in its last
  // two dims (attention written matmul(Q, transpose(K)) needs K's tile as
  // [dim, keys] for the body's matmul).
  bool transposeTiles = false;
  // Tests: enumerate without the canonical order and the seen-set (brute
  // force), to count what the canonical enumeration must also find.
  bool bruteForce = false;
  std::vector<int8_t> pruneMemo;  // per ExprId: -1 unknown, 0 kept, 1 pruned
  Stats stats;
  // Moves refused for the discrepancy budget, never reset (stats.deferred
  // is flushed): a work item that refused none explored the same space as
  // every later pass of its configuration would (search.cpp, saturated_).
  int64_t deferredEver = 0;
  // Times stopped() answered yes, never reset: a subtree explored while
  // it did not change was not cut short.
  int64_t haltsEver = 0;
  // States explored whole, shared by the search's threads; null: none kept
  // (Options::skipSaturatedStates).
  SaturatedStates* saturated = nullptr;
  // States pruned for losing a tie (BodySearch::beatenHere), ever: a
  // search of the kernels after a closed one that pruned any is not
  // recorded as barren (BodySearch::searchRest).
  int64_t tiesLostEver = 0;
  std::function<bool()> stopped;
  std::function<void(const Plan&)> emit;  // a complete plan (representative extents)

  // Branch and bound (docs/search.md, "Bounds"). `bestAtMost[k]` is the
  // lowest cost of a verified candidate with at most k launches (infinity
  // when none); see beaten(). Empty kernelFloor: no bounding.
  std::function<double(const KernelFloor&)> kernelFloor;
  std::function<double(int, double, int64_t)> launchesFloor;  // Options::launchesFloor
  const std::atomic<double>* bestAtMost = nullptr;
  int planKernels = 0;
  double closedFloorUs = 0;
  std::vector<char> neededInput;  // per program input: some output depends on it  // lower bounds of the kernels the current plan has closed
  // Floor points by configuration, tiles and saves (kernelFloorPoints):
  // they depend on the program, the limits and the cost model only, so
  // the engine gives all its threads one memo (a miss evaluates a few
  // hundred extent choices).
  struct FloorMemo {
    // At most FloorPointList::kMostKept points a key, about 140 bytes a
    // point: at most about 400 MB. (Bounded by 200,000 keys of a few
    // hundred points each it held over 1 GB of GQA's default run, 5 GB at
    // worst.)
    static constexpr size_t kMostPoints = size_t{3} << 20;
    std::shared_mutex mu;
    std::unordered_map<std::string, FloorPoints> points;
    size_t held = 0;  // points in the memo
  };
  std::shared_ptr<FloorMemo> floorMemo = std::make_shared<FloorMemo>();
  // Templates emitted, never reset (stats.templates is flushed).
  int64_t templatesEver = 0;
  // Searches of the kernels after a closed one that emitted nothing
  // (body_search.cpp, tryClose): by what they depend on, the least closed
  // floor and the most discrepancies they ran with, and whether they
  // deferred a move. A later search from the same tensors with at least
  // that floor and at most that budget emits nothing either.
  struct BarrenSearch {
    double closedFloorUs = 0;
    int discrepancies = 0;
    bool deferred = false;
  };
  std::unordered_map<std::string, BarrenSearch> barren;
  // Tests turn these off to compare: the barren-search skip and the
  // needed-operators prune (BodySearch::operatorsStillNeeded).
  bool skipBarren = true;
  bool pruneUnreachable = true;
  // And the seen-set (seen_states.h): without it every order the canonical
  // order admits is explored, so the canonical search can be compared body
  // by body with the brute force.
  bool dedupStates = true;
  bool checkAncestorBounds = false;  // Options::checkAncestorBounds
  bool pruneByBound = true;          // Options::pruneByBound
  // With checkAncestorBounds: the bound each closed kernel of the plan
  // being built had when it closed (BodySearch::tryClose), innermost last.
  std::vector<double> closeBounds;
  // ... and the bound it had where the last kernel makes no exp and reads
  // every one from it (BodySearch::tryClose; 0 where that is no
  // case), checked against completions whose last kernel makes none.
  std::vector<double> closeBoundsIfLastReadsExps;
  // Every completion of a plan of planKernels kernels with lower bound
  // `floor` is dominated strictly by a verified candidate: one with at
  // most as many launches is faster, or one with fewer is at least as
  // fast, or (`tieLost`: the plan's tie key is larger than the key of the
  // candidate that sets bestAtMost[planKernels], which has planKernels
  // launches; docs/search.md, "Ties") one with as many is as fast.
  // Or every completion is off the front's reach: slower than frontSlack
  // times the best verified candidate the search found, of any launch
  // count (`bestFound`; the input's own reach prunes no plan: it would make
  // every state pay for its bound from the start, to prune next to nothing).
  // Or, in a run that bets (`aspiration`), the floor exceeds the bet's
  // aspiration: then `aspirationDecided` is set.
  bool beaten(double floor, bool tieLost = false) const {
    if (!bestAtMost) return false;
    floor = quantizeUs(floor);  // costs rank at kCostResolutionUs
    const double best = bestAtMost[planKernels].load(std::memory_order_relaxed);
    if (floor > best || (tieLost && floor >= best) ||
        (planKernels > 0 && floor >= bestAtMost[planKernels - 1].load(std::memory_order_relaxed)) ||
        (bestFound && floor > frontSlack * bestFound->load(std::memory_order_relaxed)))
      return true;
    if (floor > aspiration) {
      aspirationDecided = true;
      aspirationLeastInCheck = std::min(aspirationLeastInCheck, floor);
      return true;
    }
    return false;
  }
  // The leader's bet (docs/search.md, "Scheduling", the leader's bet): a
  // run that bets its pass holds a plan cheaper than `aspiration` prunes
  // every state whose bound exceeds it too. Such prunes (counted in
  // aspirationPrunesEver, never reset) leave part of the item's space
  // unexplored: the run finishes nothing, marks no pass saturated and
  // records no barren search. Infinity: no bet.
  double aspiration = std::numeric_limits<double>::infinity();
  int64_t aspirationPrunesEver = 0;
  mutable bool aspirationDecided = false;  // a beaten() since the flag was cleared answered by the aspiration
  // The least floor the aspiration decided in the check under way, and in
  // the states it pruned since the engine reset it (infinity: none): a bet
  // under any aspiration below it would have pruned the same states.
  mutable double aspirationLeastInCheck = std::numeric_limits<double>::infinity();
  double aspirationLeastPruned = std::numeric_limits<double>::infinity();
  const std::atomic<double>* bestFound = nullptr;
  double frontSlack = std::numeric_limits<double>::infinity();
  // The tie keys of the candidates that set bestAtMost, per launch count
  // (empty where that candidate has fewer launches or none is verified),
  // copied from the engine's when its version moves (refreshBestKeys).
  const std::atomic<int>* bestKeyVersion = nullptr;
  int bestKeysSeen = -1;
  std::vector<std::vector<int64_t>> bestKeys;
  std::function<void(Context&)> refreshBestKeys;
  const std::vector<int64_t>* bestKeyFor(int kernels) {
    if (!bestKeyVersion) return nullptr;
    if (bestKeyVersion->load(std::memory_order_acquire) != bestKeysSeen) refreshBestKeys(*this);
    if (kernels < 0 || static_cast<size_t>(kernels) >= bestKeys.size()) return nullptr;
    const std::vector<int64_t>& k = bestKeys[static_cast<size_t>(kernels)];
    return k.empty() ? nullptr : &k;
  }
  bool canBeBeaten() const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    return bestAtMost && (aspiration < inf || bestAtMost[planKernels].load(std::memory_order_relaxed) < inf ||
                          (bestFound && frontSlack < inf && bestFound->load(std::memory_order_relaxed) < inf));
  }

  bool prune(ExprId e);                // true when e is a subexpression of no target

  // Some target holds the opaque atom of a custom kernel of the input
  // (labels.cpp): no operator of a body makes that atom, so no plan can
  // equal the target and the space holds no candidate.
  bool unreachableTarget = false;

  // What every completion still has to build (docs/search.md, "Needed
  // operators"): the atoms of the targets (nested ones included) that only
  // one operator each can create (sqrt, silu, gelu, tanh, sigmoid, log:
  // an uninterpreted function of one argument; rsqrt makes sqrt's), and
  // the targets up to scale, one class per set of equal targets. Bit i of
  // neededAtomsOf(e) says e contains neededAtoms[i] (anywhere), bit c of
  // classesOf(e) that e equals class c up to a constant.
  std::vector<AtomId> neededAtoms;        // at most 64
  // Classes 0 .. targetClasses - 1 are the targets'; after them come the
  // arguments of needed atoms that equal no target, each needed only while
  // one of the atoms in classNeededWhile is missing (0: always, a target).
  std::vector<int> targetClass;           // per target: its class
  int targetClasses = 0;
  std::vector<ExprId> classExprs;         // per class: its expression (up to scale)
  std::vector<uint64_t> classNeededWhile; // per class: the atoms whose argument it is
  std::vector<int> atomOfClass;           // per class: index into neededAtoms, or -1
  // Per class label: the program's sums and maxima over it, each as the
  // program inputs (a bit each) its factors that vary with the label come
  // from, one entry per additive term (body_search.cpp, programSums).
  std::vector<std::vector<uint64_t>> labelSums;
  // Per class label: the inputs every entry of labelSums has; a for-loop
  // over that label walks a tile of each (BodySearch::loopCarriers).
  std::vector<uint64_t> loopNeedsInputs;
  std::vector<uint64_t> inputsCarrying;  // per class label: the program inputs that have it
  // The forms in which the program multiplies a value summed over a label
  // by one that still has it (a square, a product, a quotient's
  // numerator): a body makes a product across a sum only in those forms,
  // and only into one of the program's terms (BodySearch::multipliesAcrossSum;
  // docs/search.md, "No product across a sum"). kAnyProductAcrossSum: a
  // program the analysis does not follow (layout operators, custom
  // kernels), where every product is kept.
  static constexpr uint8_t kSquareAcrossSum = 1, kMulAcrossSum = 2, kDivAcrossSum = 4, kAnyProductAcrossSum = 8;
  uint8_t productsAcrossSums = kAnyProductAcrossSum;
  // Per class label: the program's sums over it, each term as the inputs
  // that have the label and their exponents outside every atom (a hash of
  // each: monomialOver); empty for a label nothing sums over, and for
  // every label of a program with layout operators or custom kernels.
  std::vector<std::unordered_set<uint64_t>> labelSumTerms;
  // Labels (a bit each, below 64) the program sums over, each of whose sums
  // has in every term an exp whose argument varies with the label (a
  // softmax's sums over its keys). Under the guard, an accumulation over
  // such a label is made only of a value that depends on a running
  // maximum (BodySearch::dfs; docs/search.md, "Guarded partials").
  uint64_t expWeightedSumLabels = 0;
  // Per class label: how many sums over it the program makes whose every
  // term holds an exp that varies with it and that no one sum makes (their
  // terms' monomialOver keys differ; a softmax's denominator and its
  // weighted sum), up to 2 (BodySearch::expReaders).
  std::vector<int> expSumsOver;
  FlatMemo<bool> sumTermsMemo;
  uint64_t monomialOver(const Monomial& m, Label l) const;
  // A sum over l of an expression summed over none of the labels `summed`
  // names (BodySearch's BVal::summed; bit 0: it holds a tile of a kernel
  // result) whose every term is one of the program's sums' terms over l
  // as monomialOver reads them (docs/search.md, "Sums of the program's
  // terms"); true where nothing is known.
  bool sumsProgramTerms(Label l, ExprId e, uint64_t summed);
  // A sum or maximum over label l of a value whose expression holds the
  // inputs `inputs` (inputsOf) can be part of an equivalent program only if
  // the inputs among them that have l include those of one of the
  // program's sums over l, the term it is part of (docs/search.md, "Sums over
  // the right index"); so none over a label the program never sums or
  // maximizes over. A partial label is not asked about, nor is any where
  // the program's sums are not known.
  bool sumsOverRightIndex(Label l, uint64_t inputs) const {
    if (l <= kUnit || static_cast<size_t>(l) >= labelSums.size()) return true;
    const std::vector<uint64_t>& sums = labelSums[static_cast<size_t>(l)];
    if (sums.empty()) return !refuseSumsOverUnsummedLabels;
    const uint64_t have = inputs & inputsCarrying[static_cast<size_t>(l)];
    return std::any_of(sums.begin(), sums.end(), [&](uint64_t t) { return (t & ~have) == 0; });
  }
  // Options::refuseSumsOverUnsummedLabels: where the program's sums are
  // known, an empty labelSums[l] means it sums nothing over l (off: nothing
  // asked, as until revision 30).
  bool refuseSumsOverUnsummedLabels = true;
  // Sums still to make (docs/search.md, "Bounds"): the monomials of the
  // needed atoms' arguments (classes past the targets') that only a sum
  // over one label can make, each as its class, that label, its degree
  // and its factors over the label (monomialOver). Empty where the
  // argument for them does not hold: guarded exps, products across sums,
  // contractions. Bit 2i of sumsPresentOf(e): e has a monomial of
  // sumNeeds[i]'s degree and key (the sum is made); bit 2i + 1: one of
  // degree 1 with its key (a value that sum could read).
  struct SumNeed {
    int cls = 0;
    Label label = kUnit;
    int64_t degree = 0;
    uint64_t key = 0;
    int group = 0;      // index into sumGroups
    SumKey summand{};   // the key as exponents of its group's inputs (summands.h)
    bool keyed = false; // summand is known and not empty
  };
  std::vector<SumNeed> sumNeeds;  // at most 31
  // The needs of one class over one label: where one operator of the
  // values a state has cannot make a value holding every missing summand,
  // two values with the label are still to be written (BodySearch::
  // sumsStillToMake). `inputs`: those that carry the label (at most 4);
  // `whole`: every need's summand is known.
  struct SumGroup {
    int cls = 0;
    Label label = kUnit;
    std::vector<int> inputs;
    uint32_t needs = 0;  // bit i: sumNeeds[i]
    bool whole = true;
  };
  std::vector<SumGroup> sumGroups;  // at most 32
  Summands summands;
  std::vector<uint64_t> classAtoms;  // per target class: neededAtomsOf its expression
  uint64_t sumsPresentOf(ExprId e);
  std::vector<uint64_t> sumsPresentMemo;  // per ExprId; bit 63 set: computed
  bool chargeSums = true;                 // Options::chargeSumsStillToMake
  bool guardedSplitRules = true;          // Options::guardedSplitRules
  bool chargePartialLoops = true;         // Options::chargePartialLoops
  bool chargeExps = true;                 // Options::chargeExpsStillToMake
  bool chargeLastKernel = true;           // Options::chargeLastKernel
  bool splitExpCases = true;              // Options::splitExpCases
  // Program inputs (a bit each) whose information must reach the kernel
  // that makes the exps whole: each is read by the program only as the
  // second operand of contractions over labels of expWeightedSumLabels (a
  // softmax's V). Under the guard only (BodySearch::lastKernelFloor).
  uint64_t flowInputs = 0;
  // Where a contraction's operand must flow (operand_flow.h): an
  // intermediate kernel's future that reads B reads at least A's degrees
  // of freedom (BodySearch::futureBytesFor). Options::chargeOperandFlow.
  std::vector<OperandFlow> operandFlows;
  bool chargeOperandFlow = true;
  bool readExpArguments = true;  // Options::readExpArguments
  bool lastMakesFromArgument = true;  // Options::lastMakesFromArgument
  bool lastReadsExpTiles = true;  // Options::lastReadsExpTiles
  bool decideFlowInputs = true;   // Options::decideFlowInputs
  bool chargeTwoKernelFuture = true;  // Options::chargeTwoKernelFuture
  bool skipLoopsWithoutAccumulator = true;  // Options::skipLoopsWithoutAccumulator
  // BodySearch::lastKernelFloor per plan (its tensors, partial labels and
  // flow tiles), bounded.
  std::unordered_map<std::string, double> lastKernelFloors;
  bool chargeUnreadValues = true;         // Options::chargeUnreadValues
  bool resumeAncestorWalks = true;        // Options::resumeAncestorWalks
  uint64_t inputsOf(ExprId e);          // the program inputs e holds (a bit each, anywhere in it)
  std::vector<uint64_t> inputsMemo;     // per ExprId; bit 63 set: computed
  uint64_t targetClassMask() const {
    return targetClasses >= 63 ? (uint64_t{1} << 63) - 1 : (uint64_t{1} << targetClasses) - 1;
  }
  uint64_t neededAtomsOf(ExprId e);
  uint64_t classesOf(ExprId e);
  std::vector<uint64_t> neededAtomsMemo;  // per ExprId; bit 63 set: computed
  std::vector<uint64_t> classMemo;        // per ExprId; bit 63 set: computed
  std::unordered_set<ExprId> preferredSet;  // the program's values' expressions, scale-free
  std::vector<int8_t> preferredMemo;        // per ExprId: -1 unknown, else preferred()
  std::vector<ExprId> scaleFreeMemo;        // per ExprId: -1 unknown, else scaleFree()
  ExprId scaleFree(ExprId e);          // e divided by its first coefficient
  bool preferred(ExprId e);            // e is one of the program's own terms up to a constant
  // Prints of expressions (expr_prints.h), and of preferredSet's members:
  // an expression whose print is proportional to none of them is not
  // preferred, which preferred() and pairTermKinds learn without building
  // a scale-free form or an operator's result.
  ExprPrints prints;
  std::vector<Print> preferredPrints;  // made on first use, from preferredSet
  bool mayBePreferred(const Print& p);
  // Bit n set: binaryKinds[n], element-wise, of a and b in either order
  // is one of the program's terms (preferred). BodySearch::pairGivesTerm
  // asks this of nearly every pair of off-program values, and each answer
  // made afresh costs up to four look-ups in the expression table per kind
  // (and new expressions); a pair's answer here costs one probe.
  uint32_t pairTermKinds(ExprId a, ExprId b);
  FlatMemo<uint32_t> pairTerms;  // by the pair of expression ids, smaller first
};

// Fills a context for the program: targets, fix arguments, operator kinds.
void initContext(Context& ctx, const ir::Graph& program, const ProgramLabels& labels,
                 const Limits& limits);

// Abstract expressions of the program's values.
std::vector<ExprId> programExprs(ExprTable& exprs, const ir::Graph& program);

// Enumerates plans of exactly `kernels` custom kernels with at most
// `discrepancies` body values that are not the program's own terms (limited
// discrepancy search), starting from the program inputs; `firstConfig` selects which configuration of the first
// kernel this call explores (see countFirstConfigs), so that threads can
// share the work.
int countFirstConfigs(Context& ctx, int kernels);
std::vector<std::vector<GridAxis>> firstConfigGrids(Context& ctx, int kernels);  // each one's grid, in that order
std::vector<Label> firstConfigLoops(Context& ctx, int kernels);  // each one's for-loop label (kUnit: none), in that order
void searchPlans(Context& ctx, int kernels, int discrepancies, int firstConfig);

// Representative blocks for a label of the given extent.
int64_t representativeParts(int64_t extent);

}  // namespace mirage::search
