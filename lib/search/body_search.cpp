// The enumerator: kernel configurations and block-level bodies, extended in
// canonical order while every new tile's abstract expression stays a
// subexpression of an output (docs/search.md, "The space" and "Pruning").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "operand_flow.h"
#include "mirage/search/guard.h"
#include "mirage/search/mix.h"
#include "move_memo.h"
#include "saturated_states.h"
#include "seen_states.h"
#include "space.h"
#include "small_vec.h"
#include "tie_key.h"

namespace mirage::search {
namespace {

struct Config {
  std::vector<GridAxis> grid;
  std::vector<int64_t> parts;  // representative blocks per axis
  Label loop = kUnit;
  int64_t forloop = 1;         // representative
};

// Body values are copied for every move the search accepts: their dims are
// stored inline (small_vec.h).
using BodyShape = SmallVec<int64_t, 6>;
using BodyLabels = SmallVec<Label, 6>;

struct BVal {
  BodyShape shape;
  BodyLabels labels;
  bool after = false;
  bool hidden = false;  // the scaled half of a two-step fix; not an operand
  bool variant = false; // changes between for-loop steps (reads a tile with fmap)
  ExprId expr = -1;
  ExprId scaleFree = -1;  // expr divided by its first coefficient (set by push)
  int uses = 0;
  // Whether an operator dfs makes from this value alone or with one pushed
  // before it gives one of the program's terms (readableAlone): -1 not
  // yet known.
  int8_t readsToTerm = -1;
  uint64_t termPairsKnown = 0;  // the bits of termPairs below computed so far
  uint64_t termPairs = 0;       // BodySearch::termPair
  uint64_t sig = 0;
  // Guard mode: the scan (running maximum) the exps this in-loop value
  // depends on subtract, so that its accumulation rescales by it; -1 none,
  // -2 more than one (it cannot be accumulated).
  int scan = -1;
  // A tile of partial sums rescaled to per-block maxima (Tensor::maxTensor):
  // it may only be accumulated with exp(m_j - M) weights.
  int needsWeight = -1;
  // Class labels summed into this value's expression outside every atom
  // (a reduction, contraction or accumulation over them, not since hidden
  // in a function, an exp or a divisor): the abstract expression forgets
  // them, so a product with a value that still has one of these labels
  // reads as a sum of the product (docs/search.md, "No product across a
  // sum").
  uint64_t summed = 0;
};

bool isUnaryKind(ir::OpKind k) { return ir::isElementwiseUnary(k); }

// The element-wise operators whose value the abstract expressions keep
// as an atom of its operand, not a polynomial in it (ExprTable::unary and
// ::binary: functions, exps, maxima), as case labels.
#define MIRAGE_CASES_ATOM_OF_OPERAND \
  case ir::OpKind::Maximum:          \
  case ir::OpKind::Minimum:          \
  case ir::OpKind::Exp:              \
  case ir::OpKind::Sqrt:             \
  case ir::OpKind::Rsqrt:            \
  case ir::OpKind::Silu:             \
  case ir::OpKind::Gelu:             \
  case ir::OpKind::Relu:             \
  case ir::OpKind::Abs:              \
  case ir::OpKind::Tanh:             \
  case ir::OpKind::Sigmoid:          \
  case ir::OpKind::Log:

// How an operator's value carries the sums in its operands' expressions
// (BVal::summed, Context::productsAcrossSums): outside every atom (Keep:
// sums, products, negation, moves; KeepFirst: a quotient's numerator, the
// divisor is inverted into an atom), hidden inside one (functions, exps,
// maxima, and leaves, which start with none), or adding the label it
// reduces over (sums, contractions, accumulators).
enum class SumFlow { Keep, KeepFirst, Hide, Reduce };

// Where an intermediate kernel's completions make the program's exps, for
// its bound (BodySearch::initExpCases): in it, or in the last kernel.
enum class ExpCase : uint8_t { Here, Last };
// What the last kernel does with the exps, for its floor
// (BodySearch::lastKernelFloor): makes them, is given them by a result of
// the kernel before it, or reads them from that kernel's results.
enum class LastExps : uint8_t { Makes, Given, Reads };
SumFlow sumFlow(ir::OpKind k) {
  switch (k) {
    case ir::OpKind::Add:
    case ir::OpKind::Sub:
    case ir::OpKind::Mul:
    case ir::OpKind::Square:
    case ir::OpKind::Neg:
    case ir::OpKind::Save:
    MIRAGE_CASES_LAYOUT
    MIRAGE_CASES_PROGRAM_LAYOUT return SumFlow::Keep;
    case ir::OpKind::Div: return SumFlow::KeepFirst;
    MIRAGE_CASES_ATOM_OF_OPERAND
    case ir::OpKind::ReduceMax:
    case ir::OpKind::Scan:
    case ir::OpKind::Tile:
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_SHORTHAND return SumFlow::Hide;
    case ir::OpKind::ReduceSum:
    case ir::OpKind::ReduceMean:
    case ir::OpKind::Accum:
    MIRAGE_CASES_CONTRACTION return SumFlow::Reduce;
  }
  return SumFlow::Hide;
}

// x·y (or x/y) where one operand is summed over a label (as BVal::summed)
// that the other still has; labels as bits.
bool productAcrossSum(ir::OpKind k, uint64_t summedX, uint64_t labelsX, uint64_t summedY, uint64_t labelsY) {
  if (summedX & labelsY) return true;
  return k == ir::OpKind::Mul && (summedY & labelsX) != 0;
}

// The summed labels of a value from its operands' (`first`, `second`) as
// `flow` says, with `reduced` the bit of the label a Reduce operator sums
// over (0 where it adds none).
uint64_t summedAfter(SumFlow flow, uint64_t first, uint64_t second, uint64_t reduced) {
  switch (flow) {
    case SumFlow::Hide: return 0;
    case SumFlow::Keep: return first | second;
    case SumFlow::KeepFirst: return first;
    case SumFlow::Reduce: return first | second | reduced;
  }
  return 0;
}

// Appends `op` to a kernel's body; returns its body value number.
int appendBodyOp(KernelTemplate& k, const BodyOp& op) {
  k.ops.push_back(op);
  return static_cast<int>(k.ops.size()) - 1;
}

// Appends an accumulator of body value `v` (a value computed once, or in
// every iteration of the for-loop); returns the accumulator's value number.
int appendAccum(KernelTemplate& k, int v) {
  BodyOp acc;
  acc.kind = ir::OpKind::Accum;
  acc.in0 = v;
  return appendBodyOp(k, acc);
}

int64_t classExtent(const Context& ctx, Label l) {
  return ctx.labels->extent.at(static_cast<size_t>(l));
}

// Representative blocks of a partial label: the split axis's blocks.
int64_t partialExtent(const Context& ctx, const Plan& plan, Label p) {
  auto [k, a] = plan.partialAxis.at(static_cast<size_t>(p));
  return representativeParts(classExtent(ctx, plan.kernels[static_cast<size_t>(k)].grid[static_cast<size_t>(a)].label));
}

std::vector<Config> enumerateConfigs(const Context& ctx, const Plan& plan, bool final) {
  const ProgramLabels& pl = *ctx.labels;
  // Labels that occur in the tensors a kernel can read.
  std::set<Label> present, partials;
  for (const Tensor& t : plan.tensors)
    for (Label l : t.labels) {
      if (partialOf(l))
        partials.insert(partialOf(l));
      else if (l != kUnit)
        present.insert(l);
    }
  // Grid candidates: labels of every output (a final kernel writes each
  // output block by block), or of any output for an intermediate kernel.
  std::vector<Label> parallel;
  for (Label c = 1; c <= pl.numClasses; ++c) {
    if (!pl.inOutput[static_cast<size_t>(c)] || !present.count(c)) continue;
    bool inAll = true;
    for (ir::ValueId o : ctx.program->outputs) {
      const Labels& ol = pl.ofValue[static_cast<size_t>(o)];
      inAll = inAll && std::find(ol.begin(), ol.end(), c) != ol.end();
    }
    if (!final || inAll) parallel.push_back(c);
  }
  std::vector<Label> reductions;  // present labels that no output keeps
  for (Label c : present)
    if (!pl.inOutput[static_cast<size_t>(c)]) reductions.push_back(c);
  std::stable_sort(reductions.begin(), reductions.end(),
                   [&](Label a, Label b) { return classExtent(ctx, a) > classExtent(ctx, b); });
  // An intermediate kernel without a loop comes right after the loop over
  // the largest reduction (docs/search.md, "Search order"): every two-kernel
  // best of the examples has such a first kernel, and a loop over a smaller
  // reduction (a head dim of 64) streams what one block holds whole.
  std::vector<Label> loops(reductions.begin(), reductions.end());
  if (!final) loops.insert(loops.begin() + std::min<std::ptrdiff_t>(1, std::ssize(loops)), kUnit);
  for (Label p : partials) loops.push_back(p | (1 << 30));  // marked as partial
  if (!final)
    for (Label c : parallel) loops.push_back(c);
  if (final) loops.push_back(kUnit);

  int maxDims = ctx.limits->maxGridDims;
  size_t n = parallel.size();
  std::vector<uint32_t> masks;
  for (uint32_t m = 0; m < (1u << n); ++m)
    if (std::popcount(m) <= maxDims) masks.push_back(m);
  std::stable_sort(masks.begin(), masks.end(),
                   [](uint32_t a, uint32_t b) { return std::popcount(a) > std::popcount(b); });

  std::vector<Config> out;
  for (Label loopTag : loops) {
    bool loopIsPartial = loopTag & (1 << 30);
    Label loop = loopTag & ~(1 << 30);
    for (uint32_t m : masks) {
      std::vector<Label> splits = {kUnit};
      if (!final)
        for (Label r : reductions) splits.push_back(r);
      for (Label split : splits) {
        Config c;
        for (size_t i = 0; i < n; ++i)
          if (m & (1u << i)) {
            c.grid.push_back({parallel[i], false});
            c.parts.push_back(representativeParts(classExtent(ctx, parallel[i])));
          }
        if (split != kUnit) {
          if (static_cast<int>(c.grid.size()) >= maxDims) continue;
          c.grid.push_back({split, true});
          c.parts.push_back(representativeParts(classExtent(ctx, split)));
        }
        if (loop != kUnit) {
          if (loopIsPartial) {
            c.loop = composite(0, loop);  // marks a loop over the blocks of a partial label
            c.forloop = partialExtent(ctx, plan, loop);
          } else {
            int64_t e = classExtent(ctx, loop);
            for (size_t a = 0; a < c.grid.size(); ++a)
              if (c.grid[a].label == loop) e /= c.parts[a];
            if (e < 2) continue;
            c.loop = loop;
            c.forloop = representativeParts(e);
          }
        }
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

// Calls f(factor, atom) for every factor of every term of the roots and,
// recursively, of the arguments of their atoms (each expression once).
template <class F>
void forEachFactorBelow(const ExprTable& exprs, const std::vector<ExprId>& roots, F&& f) {
  std::vector<ExprId> stack(roots.begin(), roots.end());
  std::set<ExprId> visited;
  while (!stack.empty()) {
    ExprId x = stack.back();
    stack.pop_back();
    if (!visited.insert(x).second) continue;
    for (const Monomial& m : exprs.poly(x).terms)
      for (const Factor& factor : m.factors) {
        const Atom& at = exprs.atom(factor.atom);
        f(factor, at);
        if (at.arg >= 0) stack.push_back(at.arg);
      }
  }
}

class BodySearch {
 public:
  BodySearch(Context& ctx, Plan& plan, const Config& cfg, bool final, int kernelsLeft, int discrepancies)
      : ctx_(ctx), plan_(plan), cfg_(cfg), final_(final), kernelsLeft_(kernelsLeft),
        depth_(ctx.limits->maxBlockOps), discLeft_(discrepancies) {
    tiled_.assign(plan.tensors.size(), -1);
    for (size_t a = 0; a < cfg.grid.size(); ++a) {
      const Label l = cfg.grid[a].label;
      if (partialOf(l)) continue;
      if (static_cast<size_t>(l) >= gridAxesByLabel_.size()) gridAxesByLabel_.resize(static_cast<size_t>(l) + 1, 0);
      gridAxesByLabel_[static_cast<size_t>(l)] |= uint32_t{1} << a;
    }
    initCarriers();
    initGuardedSplit();
    initExpsStillToMake();
  }

  void run() {
    // A tile every completion needs that no tensor gives
    // (beatenWithGridTiles): no body completes.
    for (uint64_t carriers : carriers_)
      if (carriers == 0) return;
    // A single kernel makes every sum and maximum of the program itself:
    // where its grid gives each block only part of a label the program
    // sums over (as a parallel axis), none of them can be made
    // (gridSplitsParallel).
    if (final_ && plan_.kernels.empty())
      for (const GridAxis& a : cfg_.grid)
        if (!a.split && static_cast<size_t>(a.label) < ctx_.labelSums.size() &&
            !ctx_.labelSums[static_cast<size_t>(a.label)].empty())
          return;
    if (loopHasNoAccumulator()) return;
    prepare();
    // A single kernel must read every input the outputs depend on: when one
    // of them cannot fit this configuration, no body can complete.
    if (final_ && plan_.kernels.empty())
      for (size_t t = 0; t < plan_.tensors.size(); ++t) {
        BodyOp op;
        BVal v;
        bool needed = false;
        for (ExprId target : ctx_.targets) needed = needed || ctx_.exprs.isSubexpr(plan_.tensors[t].expr, target);
        if (needed && !makeTile(static_cast<int>(t), op, v)) return;
      }
    if (usesSaturated()) {
      planKey_ = planKeyOf();
      if (ctx_.saturated->covers(stateKey(), depth_)) {
        ++ctx_.stats.duplicates;
        return;
      }
    }
    dfs(depth_);
    // The root's subtree, explored whole: kept for the next search of
    // this plan (a later pass's, or the same kernels closed again).
    if (usesSaturated())
      for (const auto& [key, ops] : saturatedChildren_) ctx_.saturated->record(key, ops);
    saturatedChildren_.clear();
  }

 private:
  // What a search that gets past run()'s first refusals needs. Not done in
  // the constructor: after a closed kernel every configuration of the
  // next one is constructed, and many are refused at once or pruned at
  // their root, where these tables' first slots alone were 32 KB to fill
  // (LayerNorm+Linear, before tryClose charged the saves: 1.3M searches
  // constructed, 3,400 of which visited a state).
  void prepare() {
    // Moves hold references into vals_ across the recursion: never reallocate.
    // The guard's operators (maximum, scan, subtraction, weights) come on
    // top of the budget.
    size_t most = plan_.tensors.size() + 8 * static_cast<size_t>(depth_) + 16;
    vals_.reserve(most);
    ops_.reserve(most);
    outcomeSlots_.assign(kFirstOutcomeSlots, OutcomeSlot{});
    initBound();
    initExpCases();
    initFutureOfTwo();
    initExpArgCarriers();
    if (final_) {
      present_.reserve(most);
      for (const Tensor& t : plan_.tensors) {
        tensorAtoms_ |= ctx_.neededAtomsOf(t.expr);
        tensorClasses_ |= ctx_.classesOf(t.expr);
      }
      chargesSums_ = !probe_ && chargesSumsHere();
      if (chargesSums_) {
        summands_.reserve(most);
        tensorSummands_ = summandsAfter(SummandState{}, -1);
      }
    }
  }

  // What sumsStillToMake knows of the summands, per state (the tensors'
  // in tensorSummands_, then one per body value, of it and the values
  // before it).
  struct SummandState {
    uint64_t sums = 0;      // Context::sumsPresentOf, of every value present
    uint32_t made = 0;      // summandsMadeAfter, once madeKnown
    bool madeKnown = false;  // made is asked for only where counting leaves it open (madeAt)
    uint32_t moreKnown[2] = {0, 0}, more[2] = {0, 0};  // per group and 3 or 4 values: moreProven asked, its answer
    uint64_t mostKeys = 0;  // per group below 8, a byte: the most degree-1 keys a value present holds (255: more)
  };
  static constexpr size_t kCountedGroups = 8;

  const SummandState& summandState() const { return summands_.empty() ? tensorSummands_ : summands_.back(); }

  const SumKeys& keysOf(ExprId e, size_t g) {
    return ctx_.summands.degreeOneKeys(ctx_.exprs, e, static_cast<int>(g), ctx_.sumGroups[g].inputs);
  }

  // The state after `e` joins `before` (or the tensors' state, e = -1).
  SummandState summandsAfter(const SummandState& before, ExprId e) {
    SummandState next = before;
    auto mostKeys = [&](ExprId x) {
      for (size_t g = 0; g < ctx_.sumGroups.size() && g < kCountedGroups; ++g) {
        const SumKeys& k = keysOf(x, g);
        const uint64_t n = k.wild ? 255 : std::min<uint64_t>(k.keys.size(), 255);
        if (n > ((next.mostKeys >> (8 * g)) & 0xff))
          next.mostKeys = (next.mostKeys & ~(uint64_t{0xff} << (8 * g))) | (n << (8 * g));
      }
    };
    if (e < 0) {
      for (const Tensor& t : plan_.tensors) {
        next.sums |= ctx_.sumsPresentOf(t.expr);
        mostKeys(t.expr);
      }
    } else {
      next.sums |= ctx_.sumsPresentOf(e);
      mostKeys(e);
    }
    next.madeKnown = false;
    next.moreKnown[0] = next.moreKnown[1] = next.more[0] = next.more[1] = 0;
    return next;
  }

  // SummandState::made of the state after the first `values` body values
  // (0: the tensors alone), computed on first use from the state before.
  uint32_t madeAt(size_t values) {
    SummandState& st = values == 0 ? tensorSummands_ : summands_[values - 1];
    if (st.madeKnown) return st.made;
    if (values == 0) {
      st.made = summandsMadeAfter(SummandState{}, st, -1, 0);
    } else {
      madeAt(values - 1);
      st.made = summandsMadeAfter(values == 1 ? tensorSummands_ : summands_[values - 2], st,
                                  vals_[values - 1].expr, values - 1);
    }
    st.madeKnown = true;
    return st.made;
  }

  // The needs of group g whose sum and summand no value has (keyed ones):
  // the summands still to write.
  uint32_t wantedNeeds(const Context::SumGroup& g, uint64_t sums) const {
    uint32_t wanted = 0;
    for (uint32_t m = g.needs; m != 0; m &= m - 1) {
      const int i = std::countr_zero(m);
      if (!(sums & (uint64_t{3} << (2 * i))) && ctx_.sumNeeds[static_cast<size_t>(i)].keyed) wanted |= uint32_t{1} << i;
    }
    return wanted;
  }

  // wantedScratch_: the summands of the needs in `wanted` (wantedNeeds).
  // valuesScratch_: the key sets (group g's) of the tensors and of the
  // first `values` body values, each set once where `distinct`.
  void gatherSummands(size_t g, uint32_t wanted, size_t values, bool distinct) {
    wantedScratch_.clear();
    for (uint32_t m = wanted; m != 0; m &= m - 1)
      wantedScratch_.push_back(ctx_.sumNeeds[static_cast<size_t>(std::countr_zero(m))].summand);
    valuesScratch_.clear();
    auto add = [&](ExprId e) {
      const SumKeys* k = &keysOf(e, g);
      if (!distinct || std::find(valuesScratch_.begin(), valuesScratch_.end(), k) == valuesScratch_.end())
        valuesScratch_.push_back(k);
    };
    for (const Tensor& t : plan_.tensors) add(t.expr);
    for (size_t i = 0; i < values; ++i) add(vals_[i].expr);
  }

  // Bit g set: one operator of the values present may make a value
  // holding every summand group g still wants (Summands::oneOperatorMakes),
  // or the question is not asked. A bit once set stays set below: values
  // only add, and wanted summands only go; where the summands wanted are
  // those of the state before, only operators that read the new value
  // `e` are new (e = -1: the tensors alone); `old` body values come
  // before e.
  uint32_t summandsMadeAfter(const SummandState& before, const SummandState& now, ExprId e, size_t old) {
    uint32_t made = e < 0 ? 0 : before.made;
    for (size_t g = 0; g < ctx_.sumGroups.size() && g < 32; ++g) {
      if (made & (uint32_t{1} << g)) continue;
      const Context::SumGroup& group = ctx_.sumGroups[g];
      if (!group.whole) {
        made |= uint32_t{1} << g;
        continue;
      }
      const uint32_t wanted = wantedNeeds(group, now.sums);
      if (wanted == 0) continue;
      // The body values before e (`old` of them); e, where it is one, is next.
      gatherSummands(g, wanted, old, false);
      bool can;
      if (e >= 0 && wanted == wantedNeeds(group, before.sums)) {
        can = Summands::oneOperatorWithMakes(wantedScratch_, keysOf(e, g), valuesScratch_);
      } else {
        if (e >= 0) valuesScratch_.push_back(&keysOf(e, g));
        can = Summands::oneOperatorMakes(wantedScratch_, valuesScratch_);
      }
      if (can) made |= uint32_t{1} << g;
    }
    return made;
  }

  // Summands::valuesToWrite for group g: the fewest new values that hold
  // the summands it still wants, counted from the most keys a value
  // present holds (groups past kCountedGroups: 1).
  int valuesToWrite(size_t g, const SummandState& st) const {
    if (g >= kCountedGroups) return 1;
    const uint32_t wanted = wantedNeeds(ctx_.sumGroups[g], st.sums);
    return Summands::valuesToWrite(static_cast<size_t>(std::popcount(wanted)), (st.mostKeys >> (8 * g)) & 0xff, 8);
  }

  // Whether the argument of sumsStillToMake holds in this kernel: the
  // last, without a for-loop or a grid axis that splits a reduction (whose
  // sums cover a part of a label), with tensors whose every monomial has
  // degree 1 (a tile of a sum from an earlier kernel carries no record of
  // the sum, BVal::summed, so a product of it would not be refused).
  bool chargesSumsHere() const {
    if (!ctx_.chargeSums || !ctx_.pruneUnreachable || ctx_.sumNeeds.empty() || cfg_.loop != kUnit) return false;
    if (std::any_of(cfg_.grid.begin(), cfg_.grid.end(), [](const GridAxis& a) { return a.split; })) return false;
    for (const Tensor& t : plan_.tensors)
      for (const Monomial& m : ctx_.exprs.poly(t.expr).terms)
        if (m.degree != 1) return false;
    return true;
  }

  Context& ctx_;
  Plan& plan_;
  const Config& cfg_;
  bool final_;
  int kernelsLeft_;
  int depth_;     // operators a body may still get
  int discLeft_;  // moves off the program's own terms still allowed (see preferred)
  std::vector<BVal> vals_;
  std::vector<BodyOp> ops_;
  std::vector<int> tiled_;  // per tensor: its tile's value, or -1
  std::vector<uint64_t> stamps_;  // per value: its MoveMemo stamp
  uint64_t stateHash_ = 0;
  // Needed atoms and target classes (Context::neededAtoms) that the plan's
  // tensors have, and per body value those that it and the values before
  // it have: what a completion of this state no longer needs to build.
  uint64_t tensorAtoms_ = 0, tensorClasses_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> present_;
  // Whether sumsStillToMake applies here, and what it knows (SummandState).
  bool chargesSums_ = false;
  // withOperators: the floor where the group moreGroup_ needs moreValues_
  // new values (sumsStillToMake), not yet proven.
  double floorIfMore_ = 0;
  int moreGroup_ = -1;
  int moreValues_ = 0;
  SummandState tensorSummands_;
  std::vector<SummandState> summands_;
  std::vector<SumKey> wantedScratch_;
  std::vector<const SumKeys*> valuesScratch_;
  SeenStates seen_;  // states explored, with their budgets (seen_states.h)

  // ---- branch and bound (docs/search.md, "Bounds") ----

  bool canBound_ = false;  // a lower bound can be computed
  bool bounding_ = false;  // ... and plans over it are pruned
  // Whether the state overBound last looked at loses its ties (losesTies):
  // -1 not yet asked, since only a floor that equals the best asks.
  int tieLost_ = -1;
  uint64_t tileMask_ = 0;      // tensors tiled in this body
  uint64_t requiredMask_ = 0;  // tensors the last kernel must still tile
  std::vector<uint64_t> carriers_;  // tiles a completion needs, one of each mask (initBound; none without a bound)
  // The program terms an operator makes of an expression and an operand
  // still to come (futureReaders), per expression.
  struct FutureReaders {
    bool undecided = false;
    std::vector<ExprId> terms;
  };
  std::map<std::tuple<ExprId, int64_t, int64_t>, FutureReaders> futureReaders_;
  std::vector<std::pair<int, BVal>> requiredTiles_;  // their tiles that an operator must read (unreadTileElements)
  // A kernel whose every completion saves guarded partials
  // (initGuardedSplit), and the grid axis that splits them where the bound
  // charges their loop (else -1).
  bool savesGuardedPartials_ = false;
  int guardedSplitAxis_ = -1;
  // Every completion of this kernel makes the program's exps
  // (initExpsStillToMake): while its body has no exp, the bound charges them.
  bool makesExps_ = false;
  // The future's floor besides its launches in the walk of the bound in
  // progress: for an intermediate kernel whose next kernel is the last,
  // that kernel's least cost (lastKernelFloor) in the case expCase_, else 0.
  double lastKernelUs_ = 0;
  // Where the exps are made (initExpCases): in this kernel, or in the last
  // one. expCases_: the bound is taken in each case this state allows.
  bool expCases_ = false;
  ExpCase expCase_ = ExpCase::Here;
  uint64_t flowTensors_ = 0;   // the flow inputs no closed kernel read (plan tensors)
  // The case *last* is bounded too for the state being bounded (overBound):
  // then the case *here* has the last kernel make no exp.
  bool lastAlsoBounded_ = false;
  double expsReadBytes_ = 0;   // the exps' argument's elements, each in the least element (initExpCases)
  // The last kernel makes no exp and reads every one from this kernel,
  // which saves them (setFutureFloorFor): this kernel's floor has that
  // save, expsSave_ (the argument's labels, the least element).
  bool lastReadsExps_ = false;
  FloorSave expsSave_;
  double lastWithExpsUs_ = 0;  // the last kernel's floor where it makes the exps
  // The last kernel's floors this search asked for (lastFloorFor): per set
  // of flow tensors left to it and what it does with the exps.
  struct LastFloor {
    uint64_t flow;
    LastExps exps;
    double us;
  };
  // Shared by the configurations of one searchKernels call, which search
  // kernels after the same closed ones (the floor depends on the plan, not
  // on this kernel's configuration); a body search made elsewhere keeps
  // its own.
  std::vector<LastFloor> ownLastFloors_;
  std::vector<LastFloor>* lastFloors_ = &ownLastFloors_;
  // A last kernel asked for the floor of its empty body by the kernel
  // before it (emptyBodyFloor): what it must still tile is `probeTiles_`
  // alone, and nothing a result of that kernel may give is charged.
  bool probe_ = false;
  uint64_t probeTiles_ = 0;
  std::vector<FloorSave> outputSaves_;
  std::unordered_map<uint64_t, FloorPoints> floorByTiles_;
  std::unordered_map<uint64_t, FloorPoints> wholeByTiles_;  // where the kept points ran out (FloorPointList)
  KernelFloor scratch_;  // reused: the floor of one state at one extent choice
  std::vector<double> elementsScratch_;  // reused: withOperators' block elements per value
  // An intermediate kernel: the needed program inputs and the closed
  // kernels' results that no closed kernel read, their bytes, and the
  // outputs' bytes.
  uint64_t unreadInputs_ = 0;
  std::vector<double> inputBytes_;
  double outputBytes_ = 0;

  // What the kernels after an intermediate one whose tiles are `tiled`
  // move at least: the outputs, every needed input and every closed
  // kernel's result that neither a closed kernel nor this one read, and
  // `savedBytes` (this kernel's results, once it is closed: a later kernel
  // reads each, tryComplete).
  // And where B of an operand flow is among what they read, they read at
  // least A's degrees of freedom (flowCharges_): what they read besides
  // that may carry it counts towards it.
  double futureBytesFor(uint64_t tiled, double savedBytes = 0) const {
    double bytes = outputBytes_ + savedBytes;
    const uint64_t left = unreadInputs_ & ~tiled;
    for (size_t t = 0; t < inputBytes_.size(); ++t)
      if (left & (uint64_t{1} << t)) bytes += inputBytes_[t];
    double flow = 0;
    // The exps a last kernel that makes none reads (docs/search.md, "The
    // exps' argument read"): where this kernel makes the exps, the last
    // kernel makes none (completions where it does are the case *last*'s,
    // bounded beside this one) and a flow input is left to it, each term
    // e_k · V_k of the output's sum needs e_k, which no closed result holds
    // (initExpCases): this kernel saves every one, an element each.
    if (lastReadsExps_ && (flowTensors_ & left)) flow = std::max(flow, expsReadBytes_ - savedBytes);
    for (const FlowCharge& f : flowCharges_) {
      if (!(left & f.partner)) continue;
      double carried = savedBytes;
      for (uint64_t c = left & f.carriers; c != 0; c &= c - 1) carried += inputBytes_[static_cast<size_t>(std::countr_zero(c))];
      flow = std::max(flow, f.bytes - carried);
    }
    return bytes + flow;
  }

  // Per operand flow (Context::operandFlows, operand_flow.h) whose partner
  // B no closed kernel read: B's tensor; the tensors the kernels after this
  // one may read A's information from (X, and every closed kernel's
  // result; this kernel's results are the `savedBytes` of futureBytesFor);
  // and the least bytes of A's degrees of freedom (OperandFlow::share of
  // X's elements), each in the smallest element a tensor in
  // memory has (the program's type, or f32 where a kernel saves so).
  struct FlowCharge {
    uint64_t partner = 0;
    uint64_t carriers = 0;
    double bytes = 0;
  };
  std::vector<FlowCharge> flowCharges_;
  void initFlowCharges() {
    const double leastElement = leastElementBytes();
    for (const OperandFlow& flow : ctx_.operandFlows) {
      FlowCharge f;
      int source = -1;
      for (size_t t = 0; t < plan_.tensors.size(); ++t) {
        const Tensor& ten = plan_.tensors[t];
        if (ten.kernel >= 0) f.carriers |= uint64_t{1} << t;
        if (ten.kernel < 0 && ten.index == flow.partner && (unreadInputs_ >> t & 1)) f.partner = uint64_t{1} << t;
        if (ten.kernel < 0 && ten.index == flow.source) source = static_cast<int>(t);
      }
      if (f.partner == 0 || source < 0) continue;
      f.carriers |= uint64_t{1} << source;
      f.bytes = static_cast<double>(ir::numElements(plan_.tensors[static_cast<size_t>(source)].shape)) * flow.share *
                leastElement;
      if (f.bytes > 0) flowCharges_.push_back(f);
    }
  }

  // The kernels after this one, moving `bytes`: a launch and two round
  // trips each, and where this kernel saves guarded partials, one of them
  // walks those partials with a for-loop of exactly as many steps as this
  // kernel has blocks along their axis (`loopSteps`, stepsAt).
  double futureUs(double bytes, int64_t loopSteps = 1) const {
    return std::max(ctx_.launchesFloor(kernelsLeft_ - 1, bytes, loopSteps), lastKernelUs_);
  }
  int64_t stepsAt(const FloorPoint& p, int axis) const {
    return axis >= 0 ? p.parts[static_cast<size_t>(axis)] : 1;
  }

  // Tiles every completion has (carriers_, beatenWithGridTiles): per grid
  // axis that does not split a reduction, one of a tensor that carries its
  // label (a composite dim carries its inner label: a reduction to it,
  // size=, makes a value with that label); with a for-loop, one the loop
  // walks, and those loopCarriers asks for.
  void initCarriers() {
    if (plan_.tensors.size() >= 64) return;
    for (const GridAxis& a : cfg_.grid)
      if (!a.split) carriers_.push_back(carriersOf(a.label));
    if (cfg_.loop != kUnit) {
      uint64_t carriers = 0;
      for (size_t t = 0; t < plan_.tensors.size(); ++t)
        for (Label l : plan_.tensors[t].labels)
          if (walkedByLoop(l)) carriers |= uint64_t{1} << t;
      carriers_.push_back(carriers);
    }
    for (uint64_t carriers : loopCarriers()) carriers_.push_back(carriers);
    // The last kernel writes values with exactly the outputs' labels
    // (tryComplete): one tile for each label of an output.
    if (final_)
      for (ir::ValueId o : ctx_.program->outputs)
        for (Label label : ctx_.labels->ofValue[static_cast<size_t>(o)])
          if (label != kUnit) carriers_.push_back(carriersOf(label));
    std::sort(carriers_.begin(), carriers_.end());
    carriers_.erase(std::unique(carriers_.begin(), carriers_.end()), carriers_.end());
  }

  // The bytes of one element as it lies in memory: the program's type, or
  // f32 where a kernel saves it so.
  int elementBytes(bool f32) const { return ir::dtypeBytes(f32 ? ir::DType::F32 : ctx_.program->dtype); }
  // The smallest element a tensor in memory has.
  int leastElementBytes() const { return std::min(elementBytes(false), elementBytes(true)); }

  void initBound() {
    canBound_ = ctx_.kernelFloor && ctx_.launchesFloor && plan_.tensors.size() < 64;
    bounding_ = canBound_ && ctx_.bestAtMost;
    if (!canBound_) return;
    const ir::Graph& g = *ctx_.program;
    double outputBytes = 0;
    for (ir::ValueId o : g.outputs) {
      outputBytes += static_cast<double>(ir::numElements(g.value(o).shape)) * ir::dtypeBytes(g.dtype);
      outputSaves_.push_back({ctx_.labels->ofValue[static_cast<size_t>(o)], ir::dtypeBytes(g.dtype)});
    }
    if (!final_) {
      outputBytes_ = outputBytes;
      // Inputs the outputs need, and results of closed kernels, that no
      // closed kernel read: this kernel or a later one reads each
      // (futureFor; a plan with an unread result is never emitted,
      // tryComplete).
      std::vector<char> read(plan_.tensors.size(), 0);
      for (const KernelTemplate& k : plan_.kernels)
        for (int t : k.args) read[static_cast<size_t>(t)] = 1;
      inputBytes_.assign(plan_.tensors.size(), 0);
      for (size_t t = 0; t < plan_.tensors.size(); ++t) {
        const Tensor& ten = plan_.tensors[t];
        if (read[t] || (ten.kernel < 0 && !ctx_.neededInput[static_cast<size_t>(ten.index)])) continue;
        unreadInputs_ |= uint64_t{1} << t;
        inputBytes_[t] = static_cast<double>(ir::numElements(ten.shape)) * elementBytes(plan_.savedF32(ten));
      }
      if (ctx_.chargeOperandFlow) initFlowCharges();
      return;
    }
    // The last kernel reads every input the outputs need that no earlier
    // kernel read, and every result of an earlier kernel no later one read.
    std::vector<char> read(plan_.tensors.size(), 0);
    for (const KernelTemplate& k : plan_.kernels)
      for (int t : k.args) read[static_cast<size_t>(t)] = 1;
    for (size_t t = 0; t < plan_.tensors.size(); ++t) {
      const Tensor& ten = plan_.tensors[t];
      bool needed = ten.kernel >= 0 || ctx_.neededInput[static_cast<size_t>(ten.index)];
      if (needed && !read[t]) requiredMask_ |= uint64_t{1} << t;
    }
    if (probe_) requiredMask_ = probeTiles_;
    initRequiredTiles();
  }

  // A loop over a label L (not over partial results) accumulates values
  // that sum over L the tiles it walks (an accumulated value no longer has
  // L, and only a tile walked by the loop makes it change from step to
  // step). Such a sum is part of an equivalent program only where its
  // L-varying factors are those of one of the program's own sums over L
  // (Σ_d Q is not part of Σ_d Q·K): so the loop walks, for each input every
  // such program sum takes an L-varying factor from
  // (Context::loopNeedsInputs), a tile of a tensor that has L and holds
  // that input. One mask of tensors per such input.
  std::vector<uint64_t> loopCarriers() {
    std::vector<uint64_t> out;
    if (cfg_.loop == kUnit || loopIsPartial()) return out;
    const size_t l = static_cast<size_t>(cfg_.loop);
    if (l >= ctx_.loopNeedsInputs.size()) return out;
    for (uint64_t inputs = ctx_.loopNeedsInputs[l]; inputs != 0; inputs &= inputs - 1) {
      const int input = std::countr_zero(inputs);
      uint64_t carriers = 0;
      for (size_t t = 0; t < plan_.tensors.size(); ++t) {
        const Tensor& ten = plan_.tensors[t];
        if (std::find(ten.labels.begin(), ten.labels.end(), cfg_.loop) == ten.labels.end()) continue;
        if ((ten.kernel < 0 && ten.index == input) || ctx_.exprs.isSubexpr(ctx_.exprs.input(input), ten.expr))
          carriers |= uint64_t{1} << t;
      }
      out.push_back(carriers);
    }
    return out;
  }

  // The tensors whose tiles may make a value with this label: a dim with
  // it, or a composite dim whose inner label it is (a reduction to it,
  // size=, makes a value with that label).
  uint64_t carriersOf(Label label) const {
    uint64_t carriers = 0;
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      for (Label l : plan_.tensors[t].labels)
        if (l == label || (partialOf(l) && innerOf(l) == label)) carriers |= uint64_t{1} << t;
    return carriers;
  }

  std::vector<int> maskTensors(uint64_t mask) const {
    std::vector<int> out;
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      if (mask & (uint64_t{1} << t)) out.push_back(static_cast<int>(t));
    return out;
  }

  // The least any completion of this state costs is more than a verified
  // candidate with at most as many launches: nothing here can be on the
  // result's front.
  bool overBound() {
    tieLost_ = -1;  // a new state
    if (!bounding_ || !ctx_.pruneByBound) return false;
    if (resumeStack_.size() == resumeDepth_) resumeStack_.emplace_back();
    if (resumeDepth_ == 0 || !ctx_.resumeAncestorWalks) resumeStack_[resumeDepth_].clear();
    else resumeStack_[resumeDepth_] = resumeStack_[resumeDepth_ - 1];
    if (!ctx_.canBeBeaten()) return false;
    if (!expCases_) return overBoundInCase();
    // Where the exps are made is open (docs/search.md, "Exps here or in
    // the last kernel"): every completion is beaten whichever it is.
    const bool here = !makesNoExp(), last = !savesGuardedPartials_ && !bodyHasExp();
    const ExpCaseScope scope(*this);
    lastAlsoBounded_ = last;
    if (here && !(setExpCase(ExpCase::Here), overBoundInCase())) return false;
    if (last && !(setExpCase(ExpCase::Last), overBoundInCase())) return false;
    return here || last;
  }

  // overBound in the case of where the exps are made that expCase_ says.
  bool overBoundInCase() {
    // An intermediate kernel: each needed input no closed kernel read is
    // read by this kernel (a tile still to come) or by a later one (its
    // bytes in the future's floor); every choice must be beaten. With more
    // than four such inputs, some are chosen (choiceInputs) and each other
    // one takes the choice that costs least by both terms' monotonicity:
    // not tiled here, and not charged to the future (futureBytesFor only
    // grows with what is left to it).
    const uint64_t open = final_ ? 0 : unreadInputs_ & ~tileMask_;
    const uint64_t chosen = choiceInputs(open);
    if (std::popcount(chosen) > 4 || (chosen != open && !ctx_.decideFlowInputs))
      return beatenWithGridTiles(tileMask_, outputBytes_);  // the least of every choice
    const uint64_t neither = open & ~chosen;
    for (uint64_t s = chosen;; s = (s - 1) & chosen) {  // every subset of chosen, chosen itself first
      const uint64_t tiled = tileMask_ | s;
      setFutureFloorFor(tiled);
      if (!beatenWithGridTiles(tiled, final_ ? outputBytes_ : futureBytesFor(tiled | neither))) return false;
      // Where the case *last* is not bounded beside this one, a last
      // kernel that also makes the exps is this case's other half: its
      // floor with them, and no exps saved or read.
      if (lastReadsExps_ && !lastAlsoBounded_) {
        lastReadsExps_ = false;
        lastKernelUs_ = lastFloorFor(flowTensors_ & ~tiled, LastExps::Makes);
        if (!beatenWithGridTiles(tiled, futureBytesFor(tiled | neither))) return false;
      }
      if (s == 0) break;
    }
    return true;
  }

  // Which of the `open` inputs overBoundInCase bounds each choice of
  // (tiled here or left to the kernels after this one): all of them up to
  // four; else the flow inputs alone, whose choice decides the last
  // kernel's floor (setFutureFloorFor). More choices of the others cost a
  // state more than they prune: on QKNorm+GQA's three-kernel middle
  // kernels (V and four results of the first kernel open), deciding all
  // four others too pruned under 1% more states, for sixteen times the
  // choices (docs/search.md, "Flow inputs decided").
  uint64_t choiceInputs(uint64_t open) const { return std::popcount(open) <= 4 ? open : open & flowTensors_; }

  // Every completion that tiles at least `tiled` is beaten, with the
  // kernels after this one moving `futureBytes`. A completion also has the tiles
  // carriers_ asks for: for each grid axis that does not split a
  // reduction, a tile of a tensor that carries the axis's label (each value
  // it saves needs a dim the axis maps to, saveInfo, and a value carries a
  // label only where one of its tiles does); with a for-loop, a tile the
  // loop walks (what it saves or writes is an accumulator's value, after
  // the loop, and only a value that changes from step to step, so one that
  // reads such a tile, may be accumulated); in the last kernel, a tile for
  // each label of an output (it writes values with exactly the output's
  // labels). So where no tile gives one yet,
  // every choice of one more such tile must be beaten (more tiles only cost
  // more).
  bool beatenWithGridTiles(uint64_t tiled, double futureBytes) {
    const uint64_t mask = tiled | requiredMask_;
    for (uint64_t carriers : carriers_) {
      if (carriers == 0 || (mask & carriers)) continue;
      for (uint64_t c = carriers & ~mask; c != 0; c &= c - 1)
        if (!beatenWithGridTiles(tiled | (c & (~c + 1)), futureBytes)) return false;
      return true;
    }
    // Where this kernel makes the exps, a tile that gives each input part
    // of their argument (initExpArgCarriers); none: no completion makes them.
    if (!expArgCarriers_.empty() && expsStillToMakeHere())
      for (uint64_t carriers : expArgCarriers_) {
        if (mask & carriers) continue;
        for (uint64_t c = carriers & ~mask; c != 0; c &= c - 1)
          if (!beatenWithGridTiles(tiled | (c & (~c + 1)), futureBytes)) return false;
        return true;
      }
    return beatenAt(pointsFor(mask), futureBytes, [&] { return wholePointsFor(mask); });
  }

  // The exps' argument's sources (docs/search.md, "The exps' argument
  // read"). Under the guard a body makes an exp only of a value s equal to
  // the argument of the program's exp up to scale, with its labels
  // (tryGuardedExp), and a body's values are made from its tiles. Take a
  // matmul below the argument that contracts label d, and an input X one
  // of its operands depends on with d (K in Q·Kᵀ, d the head dim): s pairs
  // X's entries along d with the other operand's, and a body pairs values
  // along d only by an operator over d (a matmul, a sum), which reads
  // values with d. So some tile holds X's dependence with d, or holds the
  // pairing made already, with every label of the matmul's result: a
  // tensor that depends on X and has d, or has every label of the matmul
  // (a partial label counts as its label: with blocks of one element it is
  // the same dim). Of a program with one exp, per such pairing, the
  // tensors that qualify; an empty set where none does. Not in a probe: a
  // result of the kernel before may qualify.
  std::vector<uint64_t> expArgCarriers_;
  void initExpArgCarriers() {
    if (!ctx_.readExpArguments || probe_ || !makesExps_ || ctx_.expArgSources.size() != 1 || plan_.tensors.size() >= 64)
      return;
    for (const Context::ExpArgSource& source : ctx_.expArgSources[0]) expArgCarriers_.push_back(argumentCarriers(source));
  }
  // The plan's tensors that qualify for `source` (initExpArgCarriers).
  uint64_t argumentCarriers(const Context::ExpArgSource& source) const {
    auto hasAll = [](const Labels& have, const std::vector<Label>& want) {
      for (Label l : want) {
        if (l == kUnit) continue;
        bool found = false;
        for (Label h : have) found = found || (partialOf(h) ? innerOf(h) : h) == l;
        if (!found) return false;
      }
      return true;
    };
    const ExprId input = ctx_.exprs.input(source.input);
    uint64_t carriers = 0;
    for (size_t t = 0; t < plan_.tensors.size() && t < 64; ++t) {
      const Tensor& ten = plan_.tensors[t];
      const bool gives = ten.kernel < 0 ? ten.index == source.input
                                        : ctx_.exprs.isSubexpr(input, ten.expr) &&
                                              (hasAll(ten.labels, {source.contracted}) || hasAll(ten.labels, source.paired));
      if (gives) carriers |= uint64_t{1} << t;
    }
    return carriers;
  }
  // This kernel makes the exps at the state being bounded: expsStillToMake
  // charges them.
  bool expsStillToMakeHere() const {
    return makesExps_ && !(expCases_ && expCase_ == ExpCase::Last) && !bodyHasExp();
  }

  // Every completion of this state with lower bound `floor` is dominated
  // (Context::beaten); its tie key is looked at only where the floor
  // reaches the best, once per state.
  bool beatenHere(double floor) {
    if (ctx_.beaten(floor)) return true;
    if (!ctx_.beaten(floor, true)) return false;
    if (tieLost_ < 0) tieLost_ = losesTies() ? 1 : 0;
    if (tieLost_ == 1) ++ctx_.tiesLostEver;
    return tieLost_ == 1;
  }

  // This state's plan loses every tie to the verified candidate that sets
  // the best of its launch count: their keys differ, and at a larger
  // element of this one (tie_key.h; docs/search.md, "Ties").
  bool losesTies() {
    const std::vector<int64_t>* best = ctx_.bestKeyFor(ctx_.planKernels);
    if (!best) return false;
    KeyCompare c{*best};
    OpCounts counts;
    counts.addKernels(plan_.kernels);
    counts.add(ops_);
    if (final_) counts.ops += operatorsStillNeeded();
    counts.put(c);
    for (const KernelTemplate& k : plan_.kernels) putKernel(c, k);
    putKernelHeader(c, cfg_.grid, cfg_.loop);
    for (const BodyOp& op : ops_) putOp(c, op, op.kind == ir::OpKind::Tile ? op.arg : -1);
    return c.order > 0;
  }

  // Every completion at these extent choices, with `base` added, is
  // beaten. Extent choices cheapest first by their tiles alone: once that
  // is too much, so is every later one; else add this body's operators.
  // Where the points the memo kept run out, and the ones it left out are
  // not beaten by their tiles alone, `whole()` gives them all.
  template <typename Whole>
  bool beatenAt(const FloorPointList& list, double futureBytes, const Whole& whole) {
    const std::vector<FloorPoint>* points = &list.points;
    FloorPoints all;
    // The closed kernels and the least future, whatever the extents.
    const double least = ctx_.closedFloorUs + futureUs(futureBytes);
    // The extent choices an ancestor of this state found beaten are beaten
    // here: each completion of this state completes the ancestor.
    uint32_t& resume = resumeAt(list, futureBytes);
    for (size_t i = resume;; ++i) {
      if (i >= points->size() && !all) {
        if (!list.truncated() || beatenHere(least + list.restUs)) return true;
        all = whole();  // the same points first
        points = &all->points;
      }
      if (i >= points->size()) return true;
      const FloorPoint& p = (*points)[i];
      if (beatenHere(least + p.us)) return true;
      // The future at these extents: the loop over this kernel's guarded
      // partials has as many steps as it has blocks along their axis.
      const double base =
          guardedSplitAxis_ >= 0 ? ctx_.closedFloorUs + futureUs(futureBytes, stepsAt(p, guardedSplitAxis_)) : least;
      if (base > least && beatenHere(base + p.us)) continue;
      const double floor = withOperators(p);
      if (beatenHere(base + floor)) continue;
      // Summands' operator tests cost more than the rest of a state: only
      // where the answer would decide.
      if (floorIfMore_ > floor && beatenHere(base + floorIfMore_) && moreProven(moreGroup_, moreValues_)) continue;
      resume = static_cast<uint32_t>(i);
      return false;
    }
  }

  // Where a walk of beatenAt over `list` with `futureBytes` stopped: the
  // first extent choice not beaten, for this state and the states below
  // it (ResumeScope). The walks of the nearest ancestor that was not
  // pruned, and of its ancestors, are where this state's begin.
  struct ResumePoint {
    const FloorPointList* list = nullptr;
    double futureBytes = 0;
    ExpCase expCase = ExpCase::Here;  // the case the walk took (initExpCases),
    double lastKernelUs = 0;          // and the future's floor in it
    uint32_t index = 0;
  };
  // Per state on the path: the first resumeDepth_ entries are those of the
  // states that were not pruned, the next one the state overBound is
  // deciding (the vectors are kept, so that their storage is reused from
  // state to state).
  std::vector<std::vector<ResumePoint>> resumeStack_;
  size_t resumeDepth_ = 0;
  uint32_t& resumeAt(const FloorPointList& list, double futureBytes) {
    std::vector<ResumePoint>& walks = resumeStack_[resumeDepth_];
    for (ResumePoint& r : walks)
      if (r.list == &list && r.futureBytes == futureBytes && r.expCase == expCase_ && r.lastKernelUs == lastKernelUs_)
        return r.index;
    walks.push_back({&list, futureBytes, expCase_, lastKernelUs_, 0});
    return walks.back().index;
  }
  // Keeps a state's walks for the states below it while dfs explores them.
  struct ResumeScope {
    BodySearch& s;
    explicit ResumeScope(BodySearch& search) : s(search) { ++s.resumeDepth_; }
    ~ResumeScope() { --s.resumeDepth_; }
    ResumeScope(const ResumeScope&) = delete;
    ResumeScope& operator=(const ResumeScope&) = delete;
  };

  const FloorPointList& floorPoints() { return pointsFor(tileMask_ | requiredMask_); }

  // The points of the tiles in `mask`, with the exps' save where this
  // kernel makes them for a last kernel that reads them (lastReadsExps_).
  const FloorPointList& pointsFor(uint64_t mask) { return *pointsIn(floorByTiles_, withExpsSave(mask), false); }
  FloorPoints wholePointsFor(uint64_t mask) { return pointsIn(wholeByTiles_, withExpsSave(mask), true); }
  static constexpr uint64_t kExpsSaveBit = uint64_t{1} << 63;  // no tensor's bit (plans of fewer than 63 tensors)
  uint64_t withExpsSave(uint64_t mask) const { return lastReadsExps_ ? mask | kExpsSaveBit : mask; }

  const FloorPoints& pointsIn(std::unordered_map<uint64_t, FloorPoints>& byTiles, uint64_t mask, bool complete) {
    auto it = byTiles.find(mask);
    if (it == byTiles.end())
      it = byTiles
               .emplace(mask, kernelFloorPoints(ctx_, plan_, cfg_.grid, cfg_.loop, maskTensors(mask & ~kExpsSaveBit),
                                                final_                    ? outputSaves_
                                                : mask & kExpsSaveBit     ? std::vector<FloorSave>{expsSave_}
                                                                          : std::vector<FloorSave>{},
                                                0, complete))
               .first;
    return it->second;
  }

  // The least of withOperators over extent choices (cheapest first by
  // their tiles and saves alone, which only add to), with `future(p)` added
  // at each (at least `leastFuture`); `whole` as for beatenAt.
  template <typename Whole, typename Future>
  double leastWithOperators(const FloorPointList& list, const Whole& whole, double leastFuture,
                            const Future& future) {
    double best = std::numeric_limits<double>::infinity();
    const std::vector<FloorPoint>* points = &list.points;
    FloorPoints all;
    for (size_t i = 0;; ++i) {
      if (i == points->size()) {
        if (all || !list.truncated() || list.restUs + leastFuture >= best) return best;
        all = whole();  // the same points first
        points = &all->points;
        if (i == points->size()) return best;
      }
      const FloorPoint& p = (*points)[i];
      if (p.us + leastFuture >= best) return best;
      best = std::min(best, provenWithOperators(p) + future(p));
    }
  }
  template <typename Whole>
  double leastWithOperators(const FloorPointList& list, const Whole& whole) {
    return leastWithOperators(list, whole, 0.0, [](const FloorPoint&) { return 0.0; });
  }

  // The lower bound of the plan in this state, without a threshold.
  double stateFloor() {
    if (!expCases_ || makesNoExp()) return stateFloorInCase();
    // The least over where the exps are made (overBound): each completion
    // in the case where it makes them, its tiles at least this state's.
    const ExpCaseScope scope(*this);
    setExpCase(ExpCase::Here);  // every unread input tiled here: no flow tile left
    double least = stateFloorInCase();
    if (!savesGuardedPartials_ && !bodyHasExp()) {
      setExpCase(ExpCase::Last);
      least = std::min(least, stateFloorInCase());
    }
    return least;
  }
  double stateFloorInCase() {
    const uint64_t mask = tileMask_ | requiredMask_;
    return ctx_.closedFloorUs + leastWithOperators(floorPoints(), [&] { return wholePointsFor(mask); },
                                                   futureUs(outputBytes_), [&](const FloorPoint& p) {
                                                     return futureUs(outputBytes_, stepsAt(p, guardedSplitAxis_));
                                                   });
  }

  // A value's elements in one block at these extents, at least: a dim
  // runs over its label's extent, split by the grid axis and the for-loop
  // over that label (a dim that is not split is only larger), a partial
  // dim over its inner extent.
  double blockElements(const BVal& v, const FloorPoint& p) const {
    double n = 1;
    for (Label l : v.labels) {
      if (l == kUnit) continue;
      double e = static_cast<double>(ctx_.labels->extent[static_cast<size_t>(innerOf(l))]);
      if (!partialOf(l)) {
        for (uint32_t axes = gridAxesOf(l); axes != 0; axes &= axes - 1)
          e /= static_cast<double>(p.parts[static_cast<size_t>(std::countr_zero(axes))]);
        if (l == cfg_.loop) e /= static_cast<double>(p.forloop);
      }
      n *= std::max(1.0, e);
    }
    return n;
  }
  // The grid axes with label l, one bit each: blockElements runs for every
  // value at every extent choice of nearly every state, and its walk of
  // the grid per label was the hottest loop of QKNorm+GQA's search.
  uint32_t gridAxesOf(Label l) const {
    return static_cast<size_t>(l) < gridAxesByLabel_.size() ? gridAxesByLabel_[static_cast<size_t>(l)] : 0;
  }
  std::vector<uint32_t> gridAxesByLabel_;  // per class label (the constructor)

  // What the tiles no operator reads yet will cost their readers: every
  // emitted body has no dead value (tryComplete, tryClose), so each such
  // tile is read by an operator still to come, and each operator that
  // withOperators counts reads its operands' block elements from shared
  // memory in every step of the for-loop: a tile is never an after-loop
  // value, so neither is an operator that reads it. Left out: a tile an
  // accumulator may read directly (a variant tile without the loop's
  // label: Accum and its weighted form are not counted as shared traffic)
  // and, in the last kernel, a tile that may itself be saved as an output.
  // In the last kernel the same holds for the tiles every completion must
  // still load (requiredMask_, precomputed in requiredTiles_), and for
  // every other value no operator reads: its reader runs after the loop
  // where the value does, else in every step. An intermediate kernel may
  // save such a value instead, but not one that mustBeRead.
  double unreadTileElements(const FloorPoint& p, const std::vector<double>& elems) {
    double inLoop = 0, afterLoop = 0;
    for (size_t i = 0; i < ops_.size(); ++i) {
      const bool tile = ops_[i].kind == ir::OpKind::Tile;
      const BVal& v = vals_[i];
      if (!tile && !final_ && !mustBeRead(i)) continue;
      if (v.uses > 0 || v.hidden || mayBeReadFree(v)) continue;
      (v.after ? afterLoop : inLoop) += elems[i];
    }
    for (const auto& [t, v] : requiredTiles_)
      if (!(tileMask_ & (uint64_t{1} << t))) inLoop += blockElements(v, p);
    return inLoop * static_cast<double>(p.forloop) + afterLoop;
  }

  // An intermediate kernel's value that no completion leaves unread: with
  // a for-loop, a value made in the loop is no sink (tryClose saves only
  // after-loop values); where the kernel saves guarded partials, an
  // after-loop value that is no rescaled accumulator is none either.
  bool mustBeRead(size_t i) const {
    if (cfg_.loop == kUnit || !ctx_.chargeUnreadValues) return false;
    if (!vals_[i].after) return true;
    if (!savesGuardedPartials_) return false;
    const BodyOp& op = ops_[i];
    return op.kind != ir::OpKind::Accum || op.in1 < 0 || op.accumMax;
  }

  // A tile whose reader the model may charge no shared traffic: an
  // accumulator of it, or none at all where it is saved as an output.
  bool mayBeReadFree(const BVal& v) const {
    if (cfg_.loop != kUnit && v.variant &&
        std::find(v.labels.begin(), v.labels.end(), cfg_.loop) == v.labels.end())
      return true;
    return final_ && std::any_of(ctx_.targets.begin(), ctx_.targets.end(),
                                 [&](ExprId t) { return ctx_.exprs.equalUpToScale(v.expr, t); });
  }

  // The last kernel: the tiles of the tensors it must still load
  // (requiredMask_) as makeTile would make them, except those
  // mayBeReadFree; a tensor this configuration cannot tile has no
  // completion here, and adds nothing.
  void initRequiredTiles() {
    for (size_t t = 0; t < plan_.tensors.size() && t < 64; ++t) {
      if (!(requiredMask_ & (uint64_t{1} << t))) continue;
      BodyOp op;
      BVal v;
      if (!makeTile(static_cast<int>(t), op, v) || mayBeReadFree(v)) continue;
      requiredTiles_.push_back({static_cast<int>(t), std::move(v)});
    }
  }

  // What the operators that make the outputs no value equals yet will
  // write, in a last kernel without a for-loop: the value saved as an
  // output has the output's block shape (tryComplete), it is made by an
  // operator still to come (a tile equal to an output is a tensor, which
  // counts as present), and without a loop that operator is neither an
  // accumulator nor a scan, so the model charges its result's elements of
  // shared-memory traffic. One operator per target class (one value equals
  // at most one class up to scale), the smallest output of the class.
  // `operand` gets the most any one of them must read: each label of its
  // result comes from an operand (a broadcast, a matmul's free dims), or
  // the operand has as many elements as the result (a transpose) or more
  // (a reduction), so it reads at least the block elements of the
  // result's widest label.
  double missingOutputElements(const FloorPoint& p, double* operand) const {
    *operand = 0;
    if (!final_ || cfg_.loop != kUnit || !ctx_.pruneUnreachable || probe_) return 0;
    const uint64_t classes = present_.empty() ? tensorClasses_ : present_.back().second;
    double n = 0;
    for (int c = 0; c < ctx_.targetClasses && c < 63; ++c) {
      if (classes & (uint64_t{1} << c)) continue;
      double least = std::numeric_limits<double>::infinity(), leastOperand = least;
      for (size_t o = 0; o < ctx_.targets.size(); ++o) {
        if (ctx_.targetClass[o] != c) continue;
        BVal out;
        out.labels = ctx_.labels->ofValue[static_cast<size_t>(ctx_.program->outputs[o])];
        least = std::min(least, blockElements(out, p));
        double widest = 1;
        for (Label l : out.labels) {
          BVal one;
          one.labels.assign(1, l);
          widest = std::max(widest, blockElements(one, p));
        }
        leastOperand = std::min(leastOperand, widest);
      }
      if (least < std::numeric_limits<double>::infinity()) n += least;
      if (leastOperand < std::numeric_limits<double>::infinity()) *operand = std::max(*operand, leastOperand);
    }
    return n;
  }

  // The floor at extent choice p with the operators of this body added, as
  // the cost model counts them (backend kernelWork): per block, FLOPs and
  // shared-memory traffic, `forloop` times in the loop, once after it.
  double withOperators(const FloorPoint& p) {
    // The scratch floor keeps its element list's storage from call to call:
    // this runs for nearly every state.
    KernelFloor& f = scratch_;
    std::vector<std::pair<ir::OpKind, double>> elements = std::move(f.blockElements);
    f = p.work;
    elements.assign(p.work.blockElements.begin(), p.work.blockElements.end());
    f.blockElements = std::move(elements);
    const double bytes = ir::dtypeBytes(ctx_.program->dtype);
    const double loop = static_cast<double>(p.forloop);
    // Each value's block elements once: an operator reads up to two.
    std::vector<double>& elems = elementsScratch_;
    elems.resize(vals_.size());
    for (size_t i = 0; i < vals_.size(); ++i) elems[i] = blockElements(vals_[i], p);
    for (size_t i = 0; i < ops_.size(); ++i) {
      const BodyOp& op = ops_[i];
      if (op.kind == ir::OpKind::Tile) continue;
      const BVal& v = vals_[i];
      const double times = v.after && op.kind != ir::OpKind::Accum ? 1 : loop;
      const double out = elems[i];
      double in = 0;
      if (op.in0 >= 0) in += elems[static_cast<size_t>(op.in0)];
      if (op.in1 >= 0 && !op.hasScalar) in += elems[static_cast<size_t>(op.in1)];
      switch (op.kind) {
        case ir::OpKind::Matmul: {
          const BVal& a = vals_[static_cast<size_t>(op.in0)];
          BVal k;
          k.labels.assign(1, a.labels.back());
          f.blockMatmulFlops += 2 * out * blockElements(k, p) * times;
          break;
        }
        case ir::OpKind::ReduceSum:
        case ir::OpKind::ReduceMean:
        case ir::OpKind::ReduceMax:
          f.blockElements.push_back({op.kind, elems[static_cast<size_t>(op.in0)] * times});
          break;
        case ir::OpKind::Accum:
          if (op.in1 >= 0 && !op.accumMax) {
            // acc = acc * exp(m_prev - m) + x: a multiply and an add per
            // element, a sub and an exp per element of m.
            const double m = elems[static_cast<size_t>(op.in1)];
            f.blockElements.push_back({ir::OpKind::Mul, out * times});
            f.blockElements.push_back({ir::OpKind::Add, out * times});
            f.blockElements.push_back({ir::OpKind::Sub, m * times});
            f.blockElements.push_back({ir::OpKind::Exp, m * times});
          } else {
            f.blockElements.push_back({op.kind, out * times});
          }
          break;
        MIRAGE_CASES_BINARY
        MIRAGE_CASES_UNARY
        MIRAGE_CASES_LAYOUT
        MIRAGE_CASES_LEAF     // not body operators of the search: never here
        MIRAGE_CASES_PROGRAM_LAYOUT
        MIRAGE_CASES_PROGRAM
        MIRAGE_CASES_SHORTHAND
        case ir::OpKind::Tile:
        case ir::OpKind::Scan:
        case ir::OpKind::Save:
          // A scalar multiply may be emitted as a division: the multiply is the least.
          f.blockElements.push_back({op.hasScalar ? ir::OpKind::Add : op.kind, out * times});
          break;
      }
      if (op.kind == ir::OpKind::Accum || op.kind == ir::OpKind::Scan) continue;
      f.blockSmemBytes += (in + out) * bytes * times;
      f.smemPerBlock += static_cast<int64_t>(out * bytes);
    }
    // The reads of values no operator reads yet may include that operand
    // (missingOutputElements): the larger of the two, not their sum.
    double operand = 0;
    const double writes = missingOutputElements(p, &operand);
    const double unread = unreadTileElements(p, elems);
    const SumsCharge sums = sumsStillToMake(p, unread, operand, writes);
    // The exps' traffic is of values other than the outputs' makers', but
    // a last kernel's output maker may be an exp: added to the reads of
    // the values present alone.
    const double charged =
        std::max({std::max(unread, operand) + writes, unread + expsStillToMake(p), sums.proven});
    f.blockSmemBytes += charged * bytes;
    const double floor = ctx_.kernelFloor(f);
    floorIfMore_ = floor;
    moreGroup_ = sums.ifMoreGroup;
    moreValues_ = sums.ifMoreValues;
    if (sums.ifMore > charged) {
      f.blockSmemBytes += (sums.ifMore - charged) * bytes;
      floorIfMore_ = ctx_.kernelFloor(f);
    }
    return floor;
  }

  // withOperators, raised to floorIfMore_ where that is proven
  // (moreProven): for the bound of a state as a number (stateFloor).
  double provenWithOperators(const FloorPoint& p) {
    const double floor = withOperators(p);
    return floorIfMore_ > floor && moreProven(moreGroup_, moreValues_) ? floorIfMore_ : floor;
  }

  // Sums still to make (docs/search.md, "Bounds"): the reads and writes of
  // shared memory that operators still to come must make, at least, with
  // `unread`, `operand` and `writes` as withOperators charges them, where
  // some needed atom's argument lacks a monomial that only a sum over
  // label l makes (Context::sumNeeds) and no value has yet. Then a sum
  // over l is still to come (reading a value with l: one row of l), and
  // where no value has the monomial it would sum (degree 1, the same
  // factors over l), an operator still to come writes one (it has l) from
  // an operand that has l. Those operators come before the atom, so
  // before every output that holds it: distinct from the outputs'
  // operators where every output still missing holds the atom. The sum's
  // read of a value that is new is no read of a value the state has.
  // 0 where none applies.
  struct SumsCharge {
    double proven = 0;       // elements of shared-memory traffic every completion makes
    double ifMore = 0;       // the same where group ifMoreGroup needs ifMoreValues new values
    int ifMoreGroup = -1;
    int ifMoreValues = 0;
  };
  SumsCharge sumsStillToMake(const FloorPoint& p, double unread, double operand, double writes) {
    SumsCharge charge;
    if (!chargesSums_) return charge;
    auto [atoms, classes] = present_.empty() ? std::make_pair(tensorAtoms_, tensorClasses_) : present_.back();
    const SummandState& st = summandState();
    const uint64_t sums = st.sums;
    const uint64_t missingAtoms = ~atoms & ((uint64_t{1} << ctx_.neededAtoms.size()) - 1);
    for (size_t i = 0; i < ctx_.sumNeeds.size(); ++i) {
      const Context::SumNeed& n = ctx_.sumNeeds[i];
      if (sums & (uint64_t{1} << (2 * i))) continue;
      if (classes & (uint64_t{1} << n.cls)) continue;
      const uint64_t atomsOfArg = ctx_.classNeededWhile[static_cast<size_t>(n.cls)] & missingAtoms;
      if (atomsOfArg == 0) continue;
      bool outputsAfter = true;
      for (int c = 0; c < ctx_.targetClasses && c < 63; ++c)
        if (!(classes & (uint64_t{1} << c)) && !(ctx_.classAtoms[static_cast<size_t>(c)] & atomsOfArg)) outputsAfter = false;
      if (!outputsAfter) continue;
      BVal one;
      one.labels.assign(1, n.label);
      const double row = blockElements(one, p);
      // New values with l still to write before the sum: none, the
      // summand, or more where the summands' keys prove it (two where no
      // one operator of the values present makes them all, more by
      // counting; and one more than that where Summands' operator tests
      // say so, asked in beatenAt). Each is read (an emitted body has no
      // dead value), each maker reads a value with l.
      const bool summandMissing = !(sums & (uint64_t{1} << (2 * i + 1)));
      double fresh = summandMissing ? 1 : 0;
      if (summandMissing && n.keyed) {
        fresh = std::max(fresh, static_cast<double>(valuesToWrite(static_cast<size_t>(n.group), st)));
        if (fresh < 2 && !(madeAt(vals_.size()) & (uint32_t{1} << n.group))) fresh = 2;
      }
      auto cost = [&](double values) {
        return std::max(unread + values * row, operand + (1 + values) * row) + writes + values * row;
      };
      charge.proven = std::max(charge.proven, cost(fresh));
      // One more new value than proven, where a test can prove it (two
      // or three values ruled out by Summands' operator tests).
      if ((fresh == 2 || fresh == 3) && cost(fresh + 1) > charge.ifMore) {
        charge.ifMore = cost(fresh + 1);
        charge.ifMoreGroup = n.group;
        charge.ifMoreValues = static_cast<int>(fresh) + 1;
      }
    }
    if (charge.ifMore <= charge.proven) charge.ifMoreGroup = -1;
    return charge;
  }

  // Group g's summands need `values` (3 or 4) new values in this state:
  // no `values` - 1 operators make them (Summands::twoOperatorsMake,
  // threeOperatorsMake), asked once per state.
  bool moreProven(int g, int values) {
    if (g < 0 || g >= 32 || values < 3 || values > 4) return false;
    SummandState& st = summands_.empty() ? tensorSummands_ : summands_.back();
    const uint32_t bit = uint32_t{1} << g;
    uint32_t& known = st.moreKnown[values - 3];
    uint32_t& proven = st.more[values - 3];
    if (!(known & bit)) {
      gatherSummands(static_cast<size_t>(g), wantedNeeds(ctx_.sumGroups[static_cast<size_t>(g)], st.sums),
                     vals_.size(), true);
      if (!ctx_.summands.operatorsMakeMemo(values - 1, wantedScratch_, valuesScratch_)) proven |= bit;
      known |= bit;
    }
    return (proven & bit) != 0;
  }

  // Explores the state just pushed unless it was explored with at least as
  // much budget.
  void descend(int opsLeft) {
    if (ctx_.bruteForce || !ctx_.dedupStates) {
      dfs(opsLeft);
      return;
    }
    if (!seen_.visit(stateHash_, opsLeft, discLeft_) || saturatedBefore(opsLeft)) {
      ++ctx_.stats.duplicates;
      return;
    }
    dfs(opsLeft);
  }

  // Saturated states (saturated_states.h; docs/search.md, "Saturated
  // states"): whether an earlier walk explored this state's whole subtree
  // with at least these operators left.
  bool saturatedBefore(int opsLeft) const { return usesSaturated() && ctx_.saturated->covers(stateKey(), opsLeft); }
  // Not where the tests compare canonical bodies with the brute force, or
  // explore without the seen-set.
  bool usesSaturated() const { return ctx_.saturated && !ctx_.bruteForce && ctx_.dedupStates; }
  // The whole plan state: the plan this search extends, and the body's
  // operators in order. Not the seen-set's hash of the body's values: a
  // state reached by another order of the same operators has other
  // completions' tie keys (tie_key.h), so a pass that reaches it so first
  // must explore it (it did before this table, which would make the
  // plan returned among equal ones depend on the threads' timing).
  uint64_t stateKey() const { return mix(planKey_ ^ (pathHashes_.empty() ? 0 : pathHashes_.back())); }
  // The hash of the body's operators in order, once `op` is pushed.
  uint64_t pathHashAfter(const BodyOp& op) const {
    KeyHash hash{pathHashes_.empty() ? 0 : pathHashes_.back()};
    putOp(hash, op, op.kind == ir::OpKind::Tile ? op.arg : -1);
    return hash.h;
  }
  std::vector<uint64_t> pathHashes_;  // per operator of the body (push)
  // The plan this search extends: its closed kernels, this kernel's
  // configuration, the kernels left (prepare).
  uint64_t planKeyOf() const {
    KeyHash hash;
    hash.put(ctx_.planKernels);
    hash.put(kernelsLeft_);
    hash.put(final_ ? 1 : 0);
    for (const KernelTemplate& k : plan_.kernels) putKernel(hash, k);
    putKernelHeader(hash, cfg_.grid, cfg_.loop);
    for (int64_t p : cfg_.parts) hash.put(p);
    hash.put(cfg_.forloop);
    return hash.h;
  }
  // As dfs leaves a state: where nothing in its subtree was deferred to a
  // later pass, pruned by the bet alone or cut short by a stop, the
  // subtree was explored whole; where it also emitted no template, a later
  // walk would emit none either (the same templates, under a best at least
  // as good, and each seen), so that skipping it changes no run's
  // numbering of its templates, which decides among equal candidates
  // (search.cpp, consider). Such a state is kept for its parent to decide;
  // where something was, the saturated children kept for it are recorded
  // (only the largest saturated subtrees are).
  struct SaturationScope {
    BodySearch& s;
    int opsLeft;
    int64_t deferred, bets, halts, templates;
    size_t mark;
    SaturationScope(BodySearch& search, int ops)
        : s(search), opsLeft(ops), deferred(search.ctx_.deferredEver), bets(search.ctx_.aspirationPrunesEver),
          halts(search.ctx_.haltsEver), templates(search.ctx_.templatesEver), mark(search.saturatedChildren_.size()) {}
    ~SaturationScope() {
      if (!s.usesSaturated()) return;
      std::vector<std::pair<uint64_t, int>>& kept = s.saturatedChildren_;
      const Context& c = s.ctx_;
      if (c.deferredEver == deferred && c.aspirationPrunesEver == bets && c.haltsEver == halts &&
          c.templatesEver == templates) {
        kept.resize(mark);
        kept.emplace_back(s.stateKey(), opsLeft);
        return;
      }
      for (size_t i = mark; i < kept.size(); ++i) s.ctx_.saturated->record(kept[i].first, kept[i].second);
      kept.resize(mark);
    }
    SaturationScope(const SaturationScope&) = delete;
    SaturationScope& operator=(const SaturationScope&) = delete;
  };
  std::vector<std::pair<uint64_t, int>> saturatedChildren_;  // (state key, operators left)
  uint64_t planKey_ = 0;

  bool loopIsPartial() const { return cfg_.loop != kUnit && partialOf(cfg_.loop) != 0; }
  // The grid axis whose blocks a kernel's partial results are side by side
  // for (plan_.partialAxis), -1 where none splits a reduction.
  int lastSplitAxis() const {
    int axis = -1;
    for (size_t a = 0; a < cfg_.grid.size(); ++a)
      if (cfg_.grid[a].split) axis = static_cast<int>(a);
    return axis;
  }

  // An intermediate kernel with a for-loop where accumNeedsScan holds and
  // a grid axis that splits a reduction: every accumulator of its bodies
  // rescales by a running maximum, and it saves only those (tryClose), so
  // each completion saves guarded partials beside their block maxima, and
  // a later kernel combines them only by a for-loop over them
  // (tryWeightedAccum) of exactly this kernel's blocks along the split
  // axis (loopOptions). docs/search.md, "Guarded partials".
  void initGuardedSplit() {
    savesGuardedPartials_ = !final_ && accumNeedsScan() && lastSplitAxis() >= 0;
    if (savesGuardedPartials_ && ctx_.chargePartialLoops) guardedSplitAxis_ = lastSplitAxis();
  }

  // Exps still to make (docs/search.md, "Bounds"). Under the guard, a body
  // makes an exp only as exp(s - m) at the program's scale (tryGuardedExp),
  // s equal to the argument of one of the program's exps up to scale, so
  // with that argument's labels. Where no closed kernel's result holds an
  // exp, a last kernel makes every exp its blocks' outputs hold: one per
  // element of the argument a block covers, exp being no function of
  // others. So does a kernel that saves guarded partials, each of whose
  // sums over its blocks' keys holds exps of its part of the argument
  // (accumNeedsScan).
  void initExpsStillToMake() {
    if (!ctx_.guard || !ctx_.chargeExps || ctx_.expArgLabels.empty() || (!final_ && !savesGuardedPartials_)) return;
    makesExps_ = final_ && ctx_.flowInputs != 0 ? !closedResultsGiveExps() : !closedResultsHoldExp();
  }

  // Some closed kernel's result may give a last kernel the exps that weigh
  // a flow input (Context::flowInputs): it holds an exp and it has a
  // label the program sums such exps over (or a partial of one: its exps
  // vary along it), or it read a flow input (its exps may already weigh
  // it). Where none does, a last kernel that makes an output needing a
  // flow input makes every exp its blocks cover: each term e_k · V_k of
  // the output's sum over k needs e_k itself, which no result without k
  // holds (a sum or maximum over k binds it), and under the guard the only
  // other source is an exp of the argument's tile (docs/search.md, "Exps
  // still to make").
  bool closedResultsGiveExps() const {
    for (const Tensor& t : plan_.tensors) {
      if (t.kernel < 0 || !holdsExp({t.expr})) continue;
      for (Label l : t.labels) {
        const Label base = partialOf(l) ? innerOf(l) : l;
        if (base > kUnit && base < 64 && (ctx_.expWeightedSumLabels >> base & 1)) return true;
      }
      for (uint64_t f = ctx_.flowInputs; f != 0; f &= f - 1)
        if (ctx_.exprs.isSubexpr(ctx_.exprs.input(std::countr_zero(f)), t.expr)) return true;
    }
    return false;
  }

  bool closedResultsHoldExp() const {
    std::vector<ExprId> results;
    for (const Tensor& t : plan_.tensors)
      if (t.kernel >= 0) results.push_back(t.expr);
    return holdsExp(results);
  }
  // Some expression of `exprs` holds an exp, anywhere in it.
  bool holdsExp(const std::vector<ExprId>& exprs) const {
    bool exp = false;
    forEachFactorBelow(ctx_.exprs, exprs, [&](const Factor&, const Atom& at) {
      if (at.kind == AtomKind::Exp) exp = true;
    });
    return exp;
  }

  // Under the guard a body makes an exp only against a maximum over a
  // label of Context::maxLabels that its blocks cover whole, or that its
  // loop walks keeping a running maximum (tryGuardedExp): a kernel whose
  // grid splits each such label and whose loop walks none makes none.
  bool makesNoExp() const {
    if (ctx_.maxLabels.empty()) return false;
    for (Label l : ctx_.maxLabels)
      if (!gridSplits(l) || cfg_.loop == l) return false;
    return true;
  }

  // Exps here or in the last kernel (docs/search.md, "The last kernel
  // before it begins"). For an intermediate kernel whose next kernel is
  // the last, under the guard, where no closed kernel's result holds an
  // exp and a flow input (Context::flowInputs) is one no closed kernel
  // read, the bound is taken in each case the state allows, and a state is
  // pruned only where it is beaten in each:
  // - *last*: this kernel makes no exp (every completion where makesNoExp;
  //   else while its body has none and it need not save guarded
  //   partials). Every exp is made in the last kernel, whose least cost,
  //   charged to the future, is its empty body's floor with the flow
  //   inputs' tiles and the exps (lastKernelFloor).
  // - *here*: it makes them (not where makesNoExp; where the body has an
  //   exp, the one case): they are charged here, as in a kernel that must
  //   make them (expsStillToMake: once an exp is made, it is made for every
  //   element of the argument its blocks cover), and each flow input this
  //   kernel does not tile is left to the last kernel, whose least cost is
  //   then its empty body's floor with those tiles alone.
  // Why a flow input's tile is needed by the last kernel: each of its
  // output blocks is W·V[:, cols] with weights W that vary over an open set
  // with the other inputs; in the last case W is computed only there, even
  // where this kernel reads V and saves something made of it; in the other,
  // no earlier kernel read V. So a block of any completion the verifier
  // accepts reads at least as many elements carrying the input as the
  // input's own tile has, each of at least its size. Configurations over
  // the partials a result of this kernel may bring cost at least the same
  // grid's without a loop (the flow inputs do not have those labels:
  // their tiles are whole either way, with more round trips), which the
  // least includes.
  void initExpCases() {
    if (probe_ || final_ || kernelsLeft_ != 2 || !ctx_.chargeLastKernel || !ctx_.guard || !canBound_ ||
        ctx_.flowInputs == 0 || closedResultsHoldExp())
      return;
    // Here is a case only where the exps are charged as in a kernel that
    // must make them.
    const bool here = !makesNoExp();
    if (here && !(ctx_.splitExpCases && ctx_.chargeExps && !ctx_.expArgLabels.empty())) return;
    // The flow inputs among the needed inputs no closed kernel read
    // (unreadInputs_, initBound).
    flowTensors_ = flowInputTensors() & unreadInputs_;
    if (flowTensors_ == 0) return;
    expCases_ = true;
    makesExps_ = here;
    lastWithExpsUs_ = lastFloorFor(flowTensors_, LastExps::Makes);
    if (ctx_.readExpArguments && ctx_.expArgLabels.size() == 1) {
      double elements = 1;
      for (Label l : ctx_.expArgLabels[0])
        if (l != kUnit) elements *= static_cast<double>(ctx_.labels->extent[static_cast<size_t>(l)]);
      expsSave_.labels.assign(ctx_.expArgLabels[0].begin(), ctx_.expArgLabels[0].end());
      expsSave_.bytes = leastElementBytes();
      expsReadBytes_ = plan_.tensors.size() < 63 ? elements * expsSave_.bytes : 0;
    }
    if (!here) setExpCase(ExpCase::Last);  // the one case
  }

  // The two kernels after a first kernel that makes no exp (docs/search.md,
  // "The two kernels after a first kernel of three"): under the guard, with
  // a flow input, where this kernel is the first of three and makesNoExp,
  // the future is charged at least the least of
  // - the last kernel making every exp: a launch and two round trips for
  //   the middle kernel, and the last kernel's floor with the flow tiles
  //   and the exps (each of its output blocks needs its V[:, cols] or a
  //   result as large, whoever read V: the weights are made only there);
  // - the middle kernel making exps and the last reading the flow tiles:
  //   the same, the last kernel's floor with the flow tiles and the exps
  //   made or read;
  // - the middle kernel making exps and reading the flow tiles (or results
  //   as large): its empty body's floor over its configurations that can
  //   make an exp, with those tiles and the exps, and its own future (one
  //   launch, and a loop over its guarded partials where it splits the
  //   keys).
  // Memoized per plan (Context::lastKernelFloors).
  void initFutureOfTwo() {
    if (probe_ || final_ || kernelsLeft_ != 3 || !plan_.kernels.empty() || !ctx_.chargeTwoKernelFuture ||
        !ctx_.chargeLastKernel || !ctx_.guard || !canBound_ || ctx_.flowInputs == 0 || ctx_.expArgLabels.size() != 1 ||
        !makesNoExp())
      return;
    const uint64_t flow = flowInputTensors();
    if (flow == 0) return;
    MemoKey key;
    key.put('F').put(flow);
    for (const Tensor& t : plan_.tensors) key.put('T').putAll(t.labels).putAll(t.shape);
    lastKernelUs_ = memoizedFloor(std::move(key), [&] {
      const double middleLaunch = ctx_.launchesFloor(1, 0, 1);
      double least =
          middleLaunch + std::min(lastKernelFloor(flow, LastExps::Makes), lastKernelFloor(flow, LastExps::Reads));
      for (const Config& c : enumerateConfigs(ctx_, plan_, false)) {
        BodySearch middle(ctx_, plan_, c, false, 2, discLeft_);
        if (middle.makesNoExp()) continue;
        least = std::min(least, middle.middleFloorWithExps(flow));
      }
      return least;
    });
  }
  // The plan's tensors that are flow inputs (Context::flowInputs).
  uint64_t flowInputTensors() const {
    uint64_t flow = 0;
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      if (plan_.tensors[t].kernel < 0 && (ctx_.flowInputs >> plan_.tensors[t].index & 1)) flow |= uint64_t{1} << t;
    return flow;
  }
  // A floor of a later kernel, from Context::lastKernelFloors under `key`
  // or computed by `floor` and kept there (0 where none is finite).
  template <typename Floor>
  double memoizedFloor(MemoKey key, const Floor& floor) {
    if (auto it = ctx_.lastKernelFloors.find(key.bytes); it != ctx_.lastKernelFloors.end()) return it->second;
    double least = floor();
    if (!std::isfinite(least)) least = 0;
    if (ctx_.lastKernelFloors.size() > 10000) ctx_.lastKernelFloors.clear();  // bounded memory
    ctx_.lastKernelFloors.emplace(std::move(key.bytes), least);
    return least;
  }
  // A middle kernel's floor before its first operator where it tiles
  // `tiles` and makes the exps, with its own future (initFutureOfTwo).
  double middleFloorWithExps(uint64_t tiles) {
    probe_ = true;
    makesExps_ = true;
    prepare();
    requiredMask_ = tiles;
    return stateFloor() - ctx_.closedFloorUs;
  }

  bool bodyHasExp() const {
    return std::any_of(ops_.begin(), ops_.end(), [](const BodyOp& op) { return op.kind == ir::OpKind::Exp; });
  }

  // The case of the walk in progress, and the future's floor besides its
  // launches in it where nothing is known of this kernel's tiles
  // (setFutureFloorFor).
  void setExpCase(ExpCase c) {
    expCase_ = c;
    lastKernelUs_ = c == ExpCase::Last ? lastWithExpsUs_ : 0;
  }
  // ... where this kernel's completions tile `tiled`: in the case here,
  // the last kernel's floor with the flow tiles left to it.
  void setFutureFloorFor(uint64_t tiled) {
    lastReadsExps_ = false;
    if (!expCases_ || expCase_ == ExpCase::Last) return;
    const uint64_t left = flowTensors_ & ~tiled;
    lastKernelUs_ = 0;
    if (left == 0) return;
    // A last kernel that makes no exp reads every one from this kernel's
    // results (futureBytesFor), a tile of them in each block
    // (lastKernelFloor); where the case *last* is not bounded beside this
    // one, overBoundInCase bounds a last kernel that makes them too.
    lastReadsExps_ = expsReadBytes_ > 0;
    lastKernelUs_ = lastFloorFor(left, lastReadsExps_ && ctx_.lastReadsExpTiles ? LastExps::Reads : LastExps::Given);
  }
  // lastKernelFloor, asked once per search for each flow and use of the exps.
  double lastFloorFor(uint64_t flow, LastExps exps) {
    for (const LastFloor& f : *lastFloors_)
      if (f.flow == flow && f.exps == exps) return f.us;
    const double us = lastKernelFloor(flow, exps);
    lastFloors_->push_back({flow, exps, us});
    return us;
  }
  // The case a completion of this body takes if it closed now (tryClose),
  // with its tiles: here where the body has an exp.
  void setClosedExpCase() {
    if (!expCases_) return;
    setExpCase(bodyHasExp() ? ExpCase::Here : ExpCase::Last);
    setFutureFloorFor(tileMask_);
    lastReadsExps_ = false;  // the last kernel may make the exps too: one bound covers both
  }
  // Restores the case and the future's floor a walk of the bound set.
  struct ExpCaseScope {
    BodySearch& s;
    ExpCase expCase;
    double lastKernelUs;
    bool lastAlsoBounded, lastReadsExps;
    explicit ExpCaseScope(BodySearch& search)
        : s(search), expCase(search.expCase_), lastKernelUs(search.lastKernelUs_),
          lastAlsoBounded(search.lastAlsoBounded_), lastReadsExps(search.lastReadsExps_) {}
    ~ExpCaseScope() {
      s.expCase_ = expCase;
      s.lastKernelUs_ = lastKernelUs;
      s.lastAlsoBounded_ = lastAlsoBounded;
      s.lastReadsExps_ = lastReadsExps;
    }
    ExpCaseScope(const ExpCaseScope&) = delete;
    ExpCaseScope& operator=(const ExpCaseScope&) = delete;
  };

  // The last kernel's least cost over its configurations: the floor of
  // its empty body (emptyBodyFloor) with the tiles of `flow` as the tiles
  // it must load, and what `exps` says of the exps: made there (charged as
  // in a kernel that must make them), given by a result of this kernel
  // (nothing charged), or read from this kernel's results, a tile of them
  // (a tensor with the exps' labels in the least element, which this
  // kernel saves: docs/search.md, "The exps a last kernel reads"). Memoized
  // per plan (Context::lastKernelFloors).
  double lastKernelFloor(uint64_t flow, LastExps exps) {
    const std::vector<ArgumentTiles> options =
        exps == LastExps::Makes ? argumentTileOptions() : std::vector<ArgumentTiles>{};
    // What the floor depends on: the tiles it must load, what it does with
    // the exps (the tensor they would be is the plan's function), the
    // plan's tensors and partial labels (the configurations and their
    // extents), and which of them give the exps' argument.
    MemoKey key;
    key.put('L').put(flow).put(static_cast<int>(exps));
    for (const Tensor& t : plan_.tensors) key.put('T').put(t.kernel).put(plan_.savedF32(t)).putAll(t.labels).putAll(t.shape);
    putPartialLabels(key);
    for (const ArgumentTiles& o : options) key.put('A').put(o.tensors).putAll(o.made);
    return memoizedFloor(std::move(key), [&] {
      if (!options.empty()) return lastKernelFloorFromArgument(flow, options);
      Plan withExps;
      Plan* plan = &plan_;
      uint64_t tiles = flow;
      if (exps == LastExps::Reads) {
        withExps = plan_;
        tiles |= uint64_t{1} << withExps.tensors.size();
        withExps.tensors.push_back(resultOfKernelsToCome(withExps, ctx_.expArgLabels[0], ctx_.expValues[0]));
        plan = &withExps;
      }
      double least = std::numeric_limits<double>::infinity();
      for (const Config& c : enumerateConfigs(ctx_, *plan, true)) {
        BodySearch last(ctx_, *plan, c, true, 1, discLeft_);
        least = std::min(least, last.emptyBodyFloor(tiles, exps == LastExps::Makes));
      }
      return least;
    });
  }

  // The argument a last kernel makes the exps of (docs/search.md, "The
  // argument a last kernel makes the exps of"): per pairing of the
  // program's one exp (Context::expArgSources), a tile that gives it.
  // One choice per pairing: the plan's tensors that qualify
  // (argumentCarriers), or a result of the kernels still to come that
  // holds the pairing made (the matmul's labels) or the input's part of
  // its operand (the operand's labels the input has). A choice is those
  // tiles: plan tensors by mask, and results to come by their index in
  // Context::expArgResults.
  struct ArgumentTiles {
    uint64_t tensors = 0;
    std::vector<int> made;  // sorted
  };
  static constexpr size_t kMostArgumentChoices = 16;
  // Every choice, one per combination of the pairings' tiles; none where
  // the rule is off, the program has not one exp, or there are more than
  // kMostArgumentChoices (then the floor is V's tiles alone, as before).
  std::vector<ArgumentTiles> argumentTileOptions() const {
    std::vector<ArgumentTiles> out;
    if (!ctx_.lastMakesFromArgument || ctx_.expArgSources.size() != 1 || ctx_.expArgSources[0].empty() ||
        plan_.tensors.size() >= 48)
      return out;
    out.push_back({});
    for (const Context::ExpArgSource& source : ctx_.expArgSources[0]) {
      std::vector<ArgumentTiles> next;
      auto extend = [&](const ArgumentTiles& o, uint64_t tensor, int madeIndex) {
        ArgumentTiles e = o;
        e.tensors |= tensor;
        if (madeIndex >= 0 && std::find(e.made.begin(), e.made.end(), madeIndex) == e.made.end()) {
          e.made.push_back(madeIndex);
          std::sort(e.made.begin(), e.made.end());
        }
        next.push_back(std::move(e));
      };
      const uint64_t carriers = argumentCarriers(source);
      for (const ArgumentTiles& o : out) {
        extend(o, 0, source.pairingResult);
        extend(o, 0, source.operandResult);
        for (uint64_t c = carriers; c != 0; c &= c - 1) extend(o, c & (~c + 1), -1);
      }
      out = std::move(next);
      if (out.size() > kMostArgumentChoices) return {};
    }
    return out;
  }
  // The least, over the choices and the last kernel's configurations, of
  // its empty body's floor with V's tiles and the choice's. Where a
  // configuration asks for a tile that carries a label the choice's tiles
  // do not carry (carriers_), a result to come with more labels might be
  // the cheaper way to it: there the floor is V's tiles alone.
  double lastKernelFloorFromArgument(uint64_t flow, const std::vector<ArgumentTiles>& options) {
    double least = std::numeric_limits<double>::infinity();
    for (const ArgumentTiles& o : options) {
      Plan plan = plan_;
      uint64_t tiles = flow | o.tensors;
      for (int m : o.made) {
        const Context::ExpArgResult& r = ctx_.expArgResults[0][static_cast<size_t>(m)];
        tiles |= uint64_t{1} << plan.tensors.size();
        plan.tensors.push_back(resultOfKernelsToCome(plan, r.labels, r.expr));
      }
      for (const Config& c : enumerateConfigs(ctx_, plan, true)) {
        BodySearch last(ctx_, plan, c, true, 1, discLeft_);
        double floor = last.carriedEmptyBodyFloor(tiles);
        if (floor < 0) {
          BodySearch plain(ctx_, plan, c, true, 1, discLeft_);
          floor = plain.emptyBodyFloor(flow, true);
        }
        least = std::min(least, floor);
      }
    }
    return least;
  }

  // A result of a kernel still to come with these labels and this value,
  // in the least element (a result of a kernel appended to `plan` that
  // saves nothing as f32): the exps a last kernel reads, or what it makes
  // their argument of.
  Tensor resultOfKernelsToCome(Plan& plan, const std::vector<Label>& labels, ExprId expr) const {
    Tensor t;
    t.labels.assign(labels.begin(), labels.end());
    for (Label l : t.labels) t.shape.push_back(ctx_.labels->extent[static_cast<size_t>(l)]);
    t.expr = expr;
    t.kernel = static_cast<int>(plan.kernels.size());
    plan.kernels.emplace_back();
    return t;
  }

  // A last kernel's floor before its first operator, apart from the
  // closed kernels', where it must tile `tiles`, make the exps where `exps`,
  // and nothing else is known of the tensors it will have (probe_).
  double emptyBodyFloor(uint64_t tiles, bool exps) {
    probe_ = true;
    probeTiles_ = tiles;
    makesExps_ = makesExps_ && exps;
    prepare();
    return stateFloor() - ctx_.closedFloorUs;
  }
  // emptyBodyFloor of a last kernel that makes the exps, where the tiles
  // carry every label this configuration asks a tile for (carriers_);
  // -1 where they do not.
  double carriedEmptyBodyFloor(uint64_t tiles) {
    probe_ = true;
    probeTiles_ = tiles;
    prepare();
    for (uint64_t carriers : carriers_)
      if (carriers != 0 && !(requiredMask_ & carriers)) return -1;
    return stateFloor() - ctx_.closedFloorUs;
  }

  // The shared-memory traffic, in elements, of the exps this kernel must
  // still make at extent choice p (none once the body has an exp), the
  // least over the program's exps: each element of the argument a block
  // covers (its block elements, times the loop's steps where the loop
  // walks one of its labels) is written by the guard's sub and by its exp,
  // read by the exp, and read twice as s (by reduce_max and by the sub: one
  // of those reads may be a read that unreadTileElements counts); where no
  // value and no tensor has the argument's labels, s is new (written, and
  // both reads are of a new value); and where the loop walks one of its
  // labels, the exp's result is read in the loop by an operator that is no
  // accumulator (which reads free only a value without the loop's label).
  double expsStillToMake(const FloorPoint& p) const {
    if (!expsStillToMakeHere()) return 0;
    double least = std::numeric_limits<double>::infinity();
    for (const std::vector<Label>& labels : ctx_.expArgLabels) {
      BVal arg;
      arg.labels.assign(labels.begin(), labels.end());
      const bool walked = std::find(labels.begin(), labels.end(), cfg_.loop) != labels.end();
      const double elements = blockElements(arg, p) * (walked ? static_cast<double>(p.forloop) : 1.0);
      const double perElement = (argumentHeld(labels) ? 4 : 6) + expReaders(labels, walked);
      least = std::min(least, perElement * elements);
    }
    return least;
  }

  // The operators still to come that read a value holding the exps (so
  // with the argument's labels) and are no accumulators, at least: with a
  // for-loop, one where it walks a label of the argument (the exp's result
  // has it), and in a last kernel, one per sum the program makes over a
  // label of the argument that no one sum makes (Context::expSumsOver; a
  // sum over a label the loop does not walk is no accumulator, and within
  // a step of one it does walk, a sum reads the step's values). None
  // without a loop: a last kernel's output maker, counted apart, may be
  // such a reader.
  double expReaders(const std::vector<Label>& labels, bool walked) const {
    if (cfg_.loop == kUnit) return 0;
    int readers = walked ? 1 : 0;
    if (final_)
      for (Label l : labels)
        if (l > kUnit && static_cast<size_t>(l) < ctx_.expSumsOver.size())
          readers = std::max(readers, ctx_.expSumsOver[static_cast<size_t>(l)]);
    return readers;
  }

  // Some value of the body, or some tensor (a tile of which it may read),
  // has every label of `labels`.
  bool argumentHeld(const std::vector<Label>& labels) const {
    if (probe_) return true;  // a result of the kernel before may hold it
    auto holds = [&](const auto& have) {
      for (Label l : labels)
        if (l != kUnit && std::find(have.begin(), have.end(), l) == have.end()) return false;
      return true;
    };
    for (const Tensor& t : plan_.tensors)
      if (holds(t.labels)) return true;
    for (const BVal& v : vals_)
      if (!v.hidden && holds(v.labels)) return true;
    return false;
  }

  // Under the guard, a for-loop over a label the program sums only under
  // exps that vary with it (Context::expWeightedSumLabels: a softmax's
  // keys) accumulates only values that depend on a running maximum: every
  // term the program sums over that label holds such an exp, which the
  // guard builds as exp(s - m) with m the running maximum where the loop
  // walks the label (tryGuardedExp). A sum over the loop of a value without
  // it is a sum no term of the program makes (docs/search.md, "Guarded
  // partials"). Only where the program maximizes that label alone: then
  // every exp of a value that varies with it subtracts a maximum over it.
  bool accumNeedsScan() const {
    return ctx_.guard && ctx_.guardedSplitRules && cfg_.loop != kUnit && !loopIsPartial() && cfg_.loop < 64 &&
           (ctx_.expWeightedSumLabels & (uint64_t{1} << cfg_.loop)) != 0 && ctx_.maxLabels.size() == 1 &&
           *ctx_.maxLabels.begin() == cfg_.loop;
  }
  // Each block holds only part of label l.
  bool gridSplits(Label l) const {
    return std::any_of(cfg_.grid.begin(), cfg_.grid.end(), [&](const GridAxis& a) { return a.label == l; });
  }
  // The grid gives each block only part of label l as one of the output's
  // parallel axes (not an axis that splits a reduction into partials): a
  // sum or maximum over l inside the body covers the block's part alone,
  // and no later kernel combines the parts (docs/search.md, "No sum over
  // a block's part of a parallel label").
  bool gridSplitsParallel(Label l) const {
    return std::any_of(cfg_.grid.begin(), cfg_.grid.end(),
                       [&](const GridAxis& a) { return a.label == l && !a.split; });
  }
  Label loopPartial() const { return partialOf(cfg_.loop); }
  // A for-loop over a label that no accumulator or scan can sum or
  // maximize over as an equivalent program does, whatever inputs and terms
  // its value holds (sumsAsProgram; only the weighted accumulators of a
  // loop over partials skip that test): one the grid also splits as a
  // parallel axis (each block walks only its part of it), or one the
  // program never sums over. A body with a for-loop saves and writes only
  // values after the loop (tryClose, tryComplete), and only an accumulator
  // makes one: no body of this configuration closes or completes
  // (docs/search.md, "Loops that cannot accumulate"). QKNorm+GQA's first
  // kernels that loop over the query rows, the batch or V's head dim
  // walked 286,000 states of a default run for nothing.
  bool loopHasNoAccumulator() {
    return ctx_.skipLoopsWithoutAccumulator && cfg_.loop != kUnit && !loopIsPartial() &&
           !sumsAsProgram(cfg_.loop, ~uint64_t{0}, -1, 0);
  }
  // A tensor dim with this label is walked by the for-loop (makeTile's fmap).
  bool walkedByLoop(Label l) const { return loopIsPartial() ? partialOf(l) == loopPartial() : l == cfg_.loop; }

  uint64_t signature(const BVal& v) const {
    uint64_t h = mix(static_cast<uint64_t>(v.expr) * 2 + (v.after ? 1 : 0));
    if (v.summed) h = mix(h ^ v.summed * 0x9e3779b97f4a7c15ull);
    for (size_t d = 0; d < v.labels.size(); ++d)
      h = mix(h ^ (static_cast<uint64_t>(v.labels[d]) << 20) ^ static_cast<uint64_t>(v.shape[d]));
    return h;
  }

  // ---- shapes, labels and expressions of candidate operators ----

  bool makeTile(int t, BodyOp& op, BVal& v) const {
    const Tensor& ten = plan_.tensors[static_cast<size_t>(t)];
    v.shape = ten.shape;
    v.labels = ten.labels;
    v.expr = ten.expr;
    v.summed = ten.kernel >= 0 ? 1 : 0;  // a kernel result may hold sums over any label
    op.kind = ir::OpKind::Tile;
    op.arg = t;
    v.variant = false;
    for (size_t a = 0; a < cfg_.grid.size(); ++a) {
      for (size_t d = 0; d < ten.labels.size(); ++d)
        if (ten.labels[d] == cfg_.grid[a].label) {
          if (v.shape[d] % cfg_.parts[a] != 0) return false;
          op.imap[a] = static_cast<int>(d);
          v.shape[d] /= cfg_.parts[a];
          break;
        }
    }
    if (cfg_.loop != kUnit) {
      for (size_t d = 0; d < ten.labels.size(); ++d) {
        Label l = ten.labels[d];
        if (!walkedByLoop(l)) continue;
        if (v.shape[d] % cfg_.forloop != 0) return false;
        op.fmap = static_cast<int>(d);
        v.variant = true;
        v.shape[d] /= cfg_.forloop;
        if (loopIsPartial()) v.labels[d] = innerOf(l);
        break;
      }
    }
    // Shared-memory feasibility: with the most blocks and for-loop steps,
    // a split dim shrinks to one element; the dims nothing splits stay
    // whole. A tile that cannot fit even then never enters this kernel.
    int64_t minBytes = ir::dtypeBytes(ctx_.program->dtype);
    for (size_t d = 0; d < ten.shape.size(); ++d) {
      bool split = static_cast<int>(d) == op.fmap;
      for (size_t a = 0; a < cfg_.grid.size(); ++a) split = split || op.imap[a] == static_cast<int>(d);
      if (!split) minBytes *= ten.shape[d];
    }
    return minBytes <= ctx_.limits->smemBytesPerBlock;
  }

  static bool broadcast(const BVal& a, const BVal& b, BVal& out) {
    size_t n = std::max(a.shape.size(), b.shape.size());
    out.shape.assign(n, 1);
    out.labels.assign(n, kUnit);
    for (size_t i = 0; i < n; ++i) {
      bool ha = i < a.shape.size(), hb = i < b.shape.size();
      size_t ia = ha ? a.shape.size() - 1 - i : 0, ib = hb ? b.shape.size() - 1 - i : 0;
      int64_t ea = ha ? a.shape[ia] : 1, eb = hb ? b.shape[ib] : 1;
      Label la = ha ? a.labels[ia] : kUnit, lb = hb ? b.labels[ib] : kUnit;
      if (ea != eb && ea != 1 && eb != 1) return false;
      if (la != lb && la != kUnit && lb != kUnit) return false;
      out.shape[n - 1 - i] = std::max(ea, eb);
      out.labels[n - 1 - i] = la != kUnit ? la : lb;
    }
    return true;
  }

  // Fills v for op (not a tile); false when the operator is illegal here.
  // `raw`: the guard's own operators, which are legal even though they
  // change nothing in the abstract expression (exp(m - M) is 1 there).
  // Otherwise an element-wise binary operator that only rescales an operand
  // is refused, and, where `inState`, one that recomputes a value of this
  // state up to scale; makeCached passes false (its outcomes are shared by
  // every state that has the operands) and asks recomputesValue per state.
  bool makeValue(const BodyOp& op, BVal& v, bool raw = false, bool inState = true) {
    v.summed = summedBy(op);
    if (raw || ctx_.productsAcrossSums & Context::kAnyProductAcrossSum) return makeValueOf(op, v, raw, inState);
    // A whole sum over a label of a value already summed over it (x − mean
    // x): the normal form reads Σ_l Σ_l as one double sum, so only into one
    // of the program's terms (docs/search.md, "No sum across a sum").
    if (sumsAcrossSum(op)) return makeValueOf(op, v, raw, inState) && ctx_.preferred(v.expr);
    if (!multipliesAcrossSum(op)) return makeValueOf(op, v, raw, inState);
    // A product across a sum: only in a form the program uses, into one of
    // its own terms (docs/search.md, "No product across a sum").
    const uint8_t form = op.kind == ir::OpKind::Square ? Context::kSquareAcrossSum
                         : op.kind == ir::OpKind::Mul  ? Context::kMulAcrossSum
                                                       : Context::kDivAcrossSum;
    return (ctx_.productsAcrossSums & form) && makeValueOf(op, v, raw, inState) && ctx_.preferred(v.expr);
  }

  static uint64_t labelBit(Label l) { return l > kUnit && l < 64 && !partialOf(l) ? uint64_t{1} << l : 0; }
  uint64_t labelsMask(const BVal& v) const {
    uint64_t m = 0;
    for (Label l : v.labels) m |= labelBit(l);
    return m;
  }

  // BVal::summed of op's value (sumFlow).
  uint64_t summedBy(const BodyOp& op) const {
    const BVal& x = vals_[static_cast<size_t>(op.in0)];
    const uint64_t a = x.summed;
    const uint64_t b = op.in1 >= 0 && !op.hasScalar ? vals_[static_cast<size_t>(op.in1)].summed : 0;
    if (op.kind == ir::OpKind::Div && op.hasScalar && op.scalarFirst) return 0;  // c/x: x inverted into an atom
    if (op.kind == ir::OpKind::Accum && op.accumMax) return 0;                    // a maximum: an atom
    uint64_t reduced = 0;
    if (op.kind == ir::OpKind::Accum)  // its second operand is the running maximum it rescales by
      return summedAfter(SumFlow::Reduce, a, 0, loopIsPartial() ? 0 : labelBit(cfg_.loop));
    if (op.kind == ir::OpKind::Matmul) reduced = labelBit(x.labels.back());
    else if (op.kind == ir::OpKind::ReduceSum && op.reduceToInner < 0)
      reduced = labelBit(x.labels[static_cast<size_t>(op.dim)]);
    return summedAfter(sumFlow(op.kind), a, b, reduced);
  }

  // A sum or maximum over label l (not a partial label) that an equivalent
  // program can make: not over a block's part of a parallel label
  // (gridSplitsParallel), of a value holding the inputs of one of the
  // program's sums over l (`inputs`, Context::sumsOverRightIndex), and for
  // a sum (`terms` >= 0, the expression summed, `summed` its BVal::summed)
  // whose every term is one of the program's (Context::sumsProgramTerms).
  bool sumsAsProgram(Label l, uint64_t inputs, ExprId terms, uint64_t summed) {
    return !gridSplitsParallel(l) && ctx_.sumsOverRightIndex(l, inputs) &&
           (terms < 0 || ctx_.sumsProgramTerms(l, terms, summed));
  }

  // A reduction over the whole of label l (not a step of a for-loop over
  // it, whose partials an accumulator completes, nor one to an inner label)
  // of a value already summed over l: the abstract expression reads
  // Σ_l (x − Σ_l x / n) as a double sum where the value is Σ_l x − Σ_l x.
  bool sumsAcrossSum(const BodyOp& op) const {
    if (op.kind != ir::OpKind::ReduceSum || op.reduceToInner >= 0) return false;
    const BVal& a = vals_[static_cast<size_t>(op.in0)];
    const Label l = a.labels[static_cast<size_t>(op.dim)];
    return l != cfg_.loop && (a.summed & labelBit(l)) != 0;
  }

  // An element-wise product (or a quotient's numerator, or a square) of a
  // value summed over label l with a value that still has l: the abstract
  // expression reads x·Σ_l y as Σ_l x·y. A move makes one only in a form
  // the program does, into one of its terms (Context::productsAcrossSums).
  bool multipliesAcrossSum(const BodyOp& op) const {
    const BVal& a = vals_[static_cast<size_t>(op.in0)];
    if (op.kind == ir::OpKind::Square) return (a.summed & labelsMask(a)) != 0;
    if (op.hasScalar || op.in1 < 0) return false;
    if (op.kind != ir::OpKind::Mul && op.kind != ir::OpKind::Div) return false;
    const BVal& b = vals_[static_cast<size_t>(op.in1)];
    return productAcrossSum(op.kind, a.summed, labelsMask(a), b.summed, labelsMask(b));
  }

  bool makeValueOf(const BodyOp& op, BVal& v, bool raw, bool inState) {
    ExprTable& ex = ctx_.exprs;
    const BVal& a = vals_[static_cast<size_t>(op.in0)];
    v.after = a.after;
    v.variant = a.variant || (op.in1 >= 0 && vals_[static_cast<size_t>(op.in1)].variant);
    // An accumulator or a scan sums or maximizes over the loop's label.
    if ((op.kind == ir::OpKind::Accum || op.kind == ir::OpKind::Scan) && !raw && !loopIsPartial() &&
        !sumsAsProgram(cfg_.loop, ctx_.inputsOf(a.expr), op.kind == ir::OpKind::Accum && !op.accumMax ? a.expr : -1,
                       a.summed))
      return false;
    if (op.kind == ir::OpKind::Accum) {
      v.variant = false;
      v.shape = a.shape;
      v.labels = a.labels;
      v.after = true;
      // accum(x, rescale=m) holds Σ x[i]·exp(m[i] - m[F-1]); the exp of a
      // difference of maxima is 1 under the max-shift axiom, so it is Σ x.
      v.expr = op.accumMax ? ex.max(a.expr, cfg_.forloop) : ex.sum(a.expr, cfg_.forloop);
      return true;
    }
    if (op.kind == ir::OpKind::Scan) {
      v.shape = a.shape;
      v.labels = a.labels;
      v.expr = ex.max(a.expr, cfg_.forloop);
      return true;
    }
    if (isUnaryKind(op.kind)) {
      v.shape = a.shape;
      v.labels = a.labels;
      v.expr = ex.unary(op.kind, a.expr);
      // An exp only at a scale the program uses (docs/search.md, "Exps at
      // the program's scale").
      return raw || op.kind != ir::OpKind::Exp || ctx_.expAtProgramScale(v.expr);
    }
    if (op.kind == ir::OpKind::ReduceSum || op.kind == ir::OpKind::ReduceMax) {
      v.shape = a.shape;
      v.labels = a.labels;
      size_t d = static_cast<size_t>(op.dim);
      int64_t n = a.shape[d];
      if (op.reduceToInner >= 0) {
        int64_t inner = classExtent(ctx_, op.reduceToInner);
        v.shape[d] = inner;
        v.labels[d] = op.reduceToInner;
        v.expr = ex.sum(a.expr, n / inner);
      } else {
        if (!raw && !partialOf(a.labels[d]) &&
            !sumsAsProgram(a.labels[d], ctx_.inputsOf(a.expr), op.kind == ir::OpKind::ReduceSum ? a.expr : -1,
                           a.summed))
          return false;
        v.shape[d] = 1;
        v.labels[d] = kUnit;
        v.expr = op.kind == ir::OpKind::ReduceSum ? ex.sum(a.expr, n) : ex.max(a.expr, n);
      }
      return true;
    }
    if (op.kind == ir::OpKind::Transpose) {
      v.shape = a.shape;
      v.labels = a.labels;
      std::swap(v.shape[static_cast<size_t>(op.dim)], v.shape[static_cast<size_t>(op.dim1)]);
      std::swap(v.labels[static_cast<size_t>(op.dim)], v.labels[static_cast<size_t>(op.dim1)]);
      v.expr = a.expr;  // a transpose renames dims only
      return v.labels != a.labels;
    }
    if (op.hasScalar) {
      v.shape = a.shape;
      v.labels = a.labels;
      v.expr = op.scalarFirst            ? ex.binary(op.kind, ex.constant(op.scalar), a.expr)
               : op.kind == ir::OpKind::Mul ? ex.scale(a.expr, op.scalar)
                                            : ex.binary(op.kind, a.expr, ex.constant(op.scalar));
      return true;
    }
    const BVal& b = vals_[static_cast<size_t>(op.in1)];
    if (a.after != b.after) return false;
    if (op.kind == ir::OpKind::Matmul) {
      size_t ra = a.shape.size(), rb = b.shape.size();
      if (ra < 2 || rb < 2) return false;
      Label k = a.labels[ra - 1];
      if (k != b.labels[rb - 2] || a.shape[ra - 1] != b.shape[rb - 2]) return false;
      if (k == kUnit ? !ctx_.labels->contractsUnit
                     : !partialOf(k) && !ctx_.labels->reduced[static_cast<size_t>(k)])
        return false;
      const ExprId product = ex.mul(a.expr, b.expr);
      if (!raw && !partialOf(k) &&
          !sumsAsProgram(k, ctx_.inputsOf(a.expr) | ctx_.inputsOf(b.expr), product, a.summed | b.summed))
        return false;
      BVal batchA, batchB;
      batchA.shape.assign(a.shape.begin(), a.shape.end() - 2);
      batchA.labels.assign(a.labels.begin(), a.labels.end() - 2);
      batchB.shape.assign(b.shape.begin(), b.shape.end() - 2);
      batchB.labels.assign(b.labels.begin(), b.labels.end() - 2);
      if (!broadcast(batchA, batchB, v)) return false;
      v.shape.push_back(a.shape[ra - 2]);
      v.labels.push_back(a.labels[ra - 2]);
      v.shape.push_back(b.shape[rb - 1]);
      v.labels.push_back(b.labels[rb - 1]);
      v.expr = ex.sum(product, a.shape[ra - 1]);
      return true;
    }
    if (!broadcast(a, b, v)) return false;
    if (!ir::isElementwiseBinary(op.kind)) return false;
    v.expr = ex.binary(op.kind, a.expr, b.expr);
    if (raw) return true;
    // An operator that only rescales an operand (add(x, x), x/x·x) adds nothing.
    if (ex.equalUpToScale(v.expr, a.expr) || ex.equalUpToScale(v.expr, b.expr) || ex.isConstant(v.expr))
      return false;
    // A sum in the ratios of one of the program's (docs/search.md, "Sums in
    // the program's ratios").
    if ((op.kind == ir::OpKind::Add || op.kind == ir::OpKind::Sub) && !ctx_.ratioConsistent(v.expr)) return false;
    return !inState || !recomputesValue(v);
  }

  // Whether this state has a value equal to `v` up to scale (only
  // broadcast wider: operators broadcast by themselves), which an
  // element-wise binary operator must not recompute.
  bool recomputesValue(const BVal& v) { return holdsScaleFree(ctx_.scaleFree(v.expr), v.after, vals_.size()); }

  // One of the first `count` values, on the same side of the loop as
  // `after`, equals scale-free expression `free` up to scale.
  bool holdsScaleFree(ExprId free, bool after, size_t count) const {
    for (size_t k = 0; k < count && k < vals_.size(); ++k)
      if (vals_[k].after == after && vals_[k].scaleFree == free) return true;
    return false;
  }

  // ---- canonical order ----

  static auto key(const BodyOp& op) {
    bool logical = op.logical0 >= 0;
    return std::make_tuple(static_cast<int>(op.kind), op.arg, logical ? op.logical0 : op.in0, logical ? -1 : op.in1,
                           op.dim, op.reduceToInner, op.scalar.num, op.scalar.den, op.scalarFirst);
  }

  bool canonical(const BodyOp& op) const {
    if (ops_.empty() || ctx_.bruteForce) return true;
    int last = static_cast<int>(ops_.size()) - 1;
    if (op.in0 == last || op.in1 == last) return true;
    return key(op) > key(ops_.back());
  }

  bool duplicateValue(const BVal& v) const {
    uint64_t sig = v.sig ? v.sig : signature(v);
    for (const BVal& w : vals_)
      if (w.sig == sig && w.expr == v.expr && w.after == v.after && w.labels == v.labels &&
          w.shape == v.shape)
        return true;
    return false;
  }

  void push(BodyOp op, BVal v) {
    if (!v.sig) v.sig = signature(v);
    v.scaleFree = ctx_.scaleFree(v.expr);
    op.offProgram = op.kind != ir::OpKind::Tile && !ctx_.preferred(v.expr);
    if (op.in0 >= 0) ++vals_[static_cast<size_t>(op.in0)].uses;
    if (op.in1 >= 0) ++vals_[static_cast<size_t>(op.in1)].uses;
    if (op.kind == ir::OpKind::Tile) {
      tiled_[static_cast<size_t>(op.arg)] = static_cast<int>(vals_.size());
      if (op.arg < 64) tileMask_ |= uint64_t{1} << op.arg;
    }
    stateHash_ += mix(v.sig);
    pathHashes_.push_back(pathHashAfter(op));
    if (final_) {
      auto [atoms, classes] = present_.empty() ? std::make_pair(tensorAtoms_, tensorClasses_) : present_.back();
      present_.push_back({atoms | ctx_.neededAtomsOf(v.expr), classes | ctx_.classesOf(v.expr)});
    }
    ops_.push_back(op);
    vals_.push_back(std::move(v));
    stamps_.push_back(MoveMemo::forThread().newStamp());
    if (chargesSums_) summands_.push_back(summandsAfter(summandState(), vals_.back().expr));
  }

  void pop() {
    const BodyOp& op = ops_.back();
    if (op.in0 >= 0) --vals_[static_cast<size_t>(op.in0)].uses;
    if (op.in1 >= 0) --vals_[static_cast<size_t>(op.in1)].uses;
    if (op.kind == ir::OpKind::Tile) {
      tiled_[static_cast<size_t>(op.arg)] = -1;
      if (op.arg < 64) tileMask_ &= ~(uint64_t{1} << op.arg);
    }
    stateHash_ -= mix(vals_.back().sig);
    pathHashes_.pop_back();
    if (final_) present_.pop_back();
    if (chargesSums_) summands_.pop_back();
    ops_.pop_back();
    vals_.pop_back();
    stamps_.pop_back();
  }

  // Tries one extension; `second` (optional) is applied on top of the first
  // as one move (a scale followed by a shift).
  // Results of operators on values, keyed by the operator and the operands'
  // signatures: states share most of their values, so most moves are
  // answered from here.
  struct Outcome {
    bool legal = false;
    BVal v;
  };
  // Outcomes of element-wise binary operators are legal in a state only
  // where it has no value equal up to scale (recomputesValue).
  static bool checkedPerState(const BodyOp& op) {
    return op.in1 >= 0 && !op.hasScalar && ir::isElementwiseBinary(op.kind);
  }
  // An open-addressing table (key -> index into outcomes_): most moves are
  // answered here and then pruned, so a lookup must cost one cache miss, not
  // a walk through a node-based map, and must not copy the value.
  // Each slot also says whether the outcome is legal and whether its
  // value's expression is pruned (Context::prune depends on the expression
  // alone), so that most moves, which are refused, cost the one probe and
  // not a second cache miss into outcomes_.
  struct OutcomeSlot {
    uint64_t key = 0;  // 0 marks an empty slot
    uint32_t index = 0;
    bool legal = false;
    bool pruned = false;
  };
  static constexpr size_t kFirstOutcomeSlots = 1024;  // a power of two (findSlot)
  std::vector<OutcomeSlot> outcomeSlots_;             // prepare() makes the first slots
  std::vector<Outcome> outcomes_;
  BVal fresh_;  // makeCached's answer in the brute force

  size_t findSlot(uint64_t k) const {
    size_t mask = outcomeSlots_.size() - 1;
    size_t i = static_cast<size_t>(k) & mask;
    while (outcomeSlots_[i].key != 0 && outcomeSlots_[i].key != k) i = (i + 1) & mask;
    return i;
  }

  // The binary moves that read the newest value miss the per-position memo
  // (its stamp is new) and look their outcome up in a table of millions,
  // one cache miss each: most of makeCached's time (perf, NTrans). Their
  // slots are requested from memory together before the moves are tried,
  // so that the misses overlap instead of coming one after another.
  void prefetchNewestOutcomes() const {
    if (ctx_.bruteForce || vals_.empty()) return;
    const int last = static_cast<int>(vals_.size()) - 1;
    const BVal& newest = vals_[static_cast<size_t>(last)];
    if (newest.hidden) return;
    const size_t mask = outcomeSlots_.size() - 1;
    for (ir::OpKind k : ctx_.binaryKinds) {
      const bool commutative = ir::isCommutative(k);
      BodyOp op;
      op.kind = k;
      for (int i = 0; i <= last; ++i) {
        const BVal& other = vals_[static_cast<size_t>(i)];
        if (other.hidden || other.after != newest.after) continue;
        op.in0 = i;
        op.in1 = last;
        __builtin_prefetch(&outcomeSlots_[static_cast<size_t>(outcomeKey(op)) & mask]);
        if (commutative || i == last) continue;
        op.in0 = last;
        op.in1 = i;
        __builtin_prefetch(&outcomeSlots_[static_cast<size_t>(outcomeKey(op)) & mask]);
      }
    }
  }

  void growOutcomeSlots() {
    std::vector<OutcomeSlot> old(outcomeSlots_.size() * 2);
    old.swap(outcomeSlots_);
    for (const OutcomeSlot& e : old)
      if (e.key != 0) outcomeSlots_[findSlot(e.key)] = e;
  }

  // The key of `op`'s outcome: its kind and attributes and its operands'
  // signatures (never 0, which marks an empty slot).
  uint64_t outcomeKey(const BodyOp& op) const {
    uint64_t k = mix(static_cast<uint64_t>(op.kind) * 1000003 + static_cast<uint64_t>(op.dim) * 7 +
                     static_cast<uint64_t>(op.reduceToInner + 1) * 131 + static_cast<uint64_t>(op.hasScalar) +
                     static_cast<uint64_t>(op.scalarFirst) * 2);
    k = mix(k ^ vals_[static_cast<size_t>(op.in0)].sig);
    if (op.in1 >= 0) k = mix(k ^ (vals_[static_cast<size_t>(op.in1)].sig * 3));
    if (op.hasScalar) k = mix(k ^ static_cast<uint64_t>(op.scalar.num) ^ (static_cast<uint64_t>(op.scalar.den) << 32));
    return k == 0 ? 1 : k;
  }

  // The value of `op` (not a tile), or null when the operator is illegal
  // here, or, where `pruned` is given, when its expression is pruned (then
  // *pruned is set). The pointer is valid until the next call.
  const BVal* makeCached(const BodyOp& op, bool* pruned = nullptr) {
    // The brute force that tests compare the search with shares no cache:
    // each outcome is made afresh in the state that asks.
    if (ctx_.bruteForce) {
      fresh_ = BVal{};
      if (!makeValue(op, fresh_)) return nullptr;
      fresh_.sig = signature(fresh_);
      if (pruned && ctx_.prune(fresh_.expr)) {
        *pruned = true;
        return nullptr;
      }
      return &fresh_;
    }
    MoveMemo& moveMemo = MoveMemo::forThread();
    MoveMemo::Pair* memo = moveMemo.pair(op);
    if (memo && memo->stamp0 == stamps_[static_cast<size_t>(op.in0)] &&
        memo->stamp1 == stamps_[static_cast<size_t>(op.in1)])
      return answer(op, *memo, pruned);
    MoveMemo::Unary* unary = memo ? nullptr : moveMemo.unary(op);
    if (unary && unary->stamp == stamps_[static_cast<size_t>(op.in0)] && unary->sameMove(op))
      return answer(op, *unary, pruned);
    const uint64_t k = outcomeKey(op);
    size_t slot = findSlot(k);
    if (outcomeSlots_[slot].key == 0) {
      Outcome o;
      o.legal = makeValue(op, o.v, false, false);
      if (o.legal) o.v.sig = signature(o.v);
      const bool prunedExpr = o.legal && ctx_.prune(o.v.expr);
      outcomes_.push_back(std::move(o));
      outcomeSlots_[slot] = {k, static_cast<uint32_t>(outcomes_.size() - 1), outcomes_.back().legal, prunedExpr};
      if (2 * outcomes_.size() > outcomeSlots_.size()) {
        growOutcomeSlots();
        slot = findSlot(k);  // the slots moved
      }
    }
    const OutcomeSlot& e = outcomeSlots_[slot];
    const MoveMemo::Answer a{e.index, e.legal, e.pruned};
    if (memo) {
      static_cast<MoveMemo::Answer&>(*memo) = a;
      memo->stamp0 = stamps_[static_cast<size_t>(op.in0)];
      memo->stamp1 = stamps_[static_cast<size_t>(op.in1)];
    }
    if (unary) unary->remember(stamps_[static_cast<size_t>(op.in0)], op, a);
    return answer(op, a, pruned);
  }

  // An outcome's answer in this state: null where the operator is illegal
  // here or (where `pruned` is given) its expression is pruned.
  const BVal* answer(const BodyOp& op, const MoveMemo::Answer& e, bool* pruned) {
    if (!e.legal) return nullptr;
    if (pruned && e.pruned) {
      *pruned = true;
      return nullptr;
    }
    const BVal& v = outcomes_[e.index].v;
    if (checkedPerState(op) && recomputesValue(v)) return nullptr;
    return &v;
  }

  // Guard bookkeeping of a new value from its operands in this state (not
  // part of the cached outcome: it names value numbers of this state).
  void deriveGuard(const BodyOp& op, BVal& v) const {
    v.scan = -1;
    v.needsWeight = -1;
    if (op.kind == ir::OpKind::Tile) {
      v.needsWeight = plan_.tensors[static_cast<size_t>(op.arg)].maxTensor;
      return;
    }
    if (v.after) return;
    if (op.kind == ir::OpKind::Scan) {
      v.scan = static_cast<int>(vals_.size());  // the scan itself
      return;
    }
    auto merge = [&](int x) {
      if (x == -1) return;
      v.scan = (v.scan == -1 || v.scan == x) ? x : -2;
    };
    if (op.in0 >= 0) merge(vals_[static_cast<size_t>(op.in0)].scan);
    if (op.in1 >= 0) merge(vals_[static_cast<size_t>(op.in1)].scan);
  }

  // Appends one of the guard's operators (a maximum, scan, difference or
  // weight): not an operand of other moves, outside the operator budget.
  int pushRaw(const BodyOp& op) {
    BVal v;
    makeValue(op, v, true);
    deriveGuard(op, v);
    v.hidden = true;
    push(op, std::move(v));
    return static_cast<int>(vals_.size()) - 1;
  }

  int findOp(ir::OpKind kind, int in0, int in1) const {
    for (size_t i = 0; i < ops_.size(); ++i)
      if (ops_[i].kind == kind && ops_[i].in0 == in0 && ops_[i].in1 == in1 && !ops_[i].hasScalar)
        return static_cast<int>(i);
    return -1;
  }

  void popTo(size_t n) {
    while (ops_.size() > n) pop();
  }

  // Pushes `v` (the value of `op`, the move proper) with the usual pruning
  // and discrepancy accounting, explores, and pops it.
  void exploreGuarded(const BodyOp& op, BVal v, int depthLeft) {
    if (ctx_.prune(v.expr)) {
      ++ctx_.stats.pruned;
      return;
    }
    if (duplicateValue(v)) {
      ++ctx_.stats.duplicates;
      return;
    }
    int disc = ctx_.preferred(v.expr) ? 0 : 1;
    if (disc > discLeft_) {
      ++ctx_.stats.deferred;
      ++ctx_.deferredEver;
      return;
    }
    push(op, std::move(v));
    discLeft_ -= disc;
    descend(depthLeft - 1);
    discLeft_ += disc;
    pop();
  }

  // Guard mode: exp(s) is built as exp(s - m), m the maximum of s over a
  // dim the program maximizes; where the for-loop walks that dim, m is the
  // running maximum scan(reduce_max(s)), and accumulations of what depends
  // on it rescale by it (see the Accum move).
  void tryGuardedExp(int i, int depthLeft) {
    BodyOp logical;
    logical.kind = ir::OpKind::Exp;
    logical.in0 = i;
    if (!canonical(logical)) {
      ++ctx_.stats.duplicates;
      return;
    }
    const ExprId expr = ctx_.exprs.exp(vals_[static_cast<size_t>(i)].expr);
    if (ctx_.prune(expr) || !ctx_.expAtProgramScale(expr)) {
      ++ctx_.stats.pruned;
      return;
    }
    size_t dims = vals_[static_cast<size_t>(i)].labels.size();
    for (size_t d = 0; d < dims; ++d) {
      const BVal& sv = vals_[static_cast<size_t>(i)];
      Label l = sv.labels[d];
      if (l == kUnit || sv.shape[d] == 1 || !ctx_.maxLabels.count(l)) continue;
      bool needScan = !sv.after && cfg_.loop == l;
      // Where the grid splits l and no running maximum is kept, the maximum
      // is the block's own: exp(s − m_b) carries a shift that changes from
      // block to block, and only the weights exp(m_b − M) of a later kernel
      // could undo it. Those need m_b saved, which a kernel does for its
      // scan-rescaled sums alone (tryClose), so no completion of such a
      // value equals the program (docs/search.md, "The guard").
      if (!needScan && gridSplits(l)) continue;
      size_t before = ops_.size();
      BodyOp rm;
      rm.kind = ir::OpKind::ReduceMax;
      rm.in0 = i;
      rm.dim = static_cast<int>(d);
      int m = pushRaw(rm);
      if (needScan) {
        BodyOp sc;
        sc.kind = ir::OpKind::Scan;
        sc.in0 = m;
        m = pushRaw(sc);
      }
      BodyOp sub;
      sub.kind = ir::OpKind::Sub;
      sub.in0 = i;
      sub.in1 = m;
      int diff = pushRaw(sub);
      BodyOp e;
      e.kind = ir::OpKind::Exp;
      e.in0 = diff;
      e.logical0 = i;
      BVal v;
      // Refused only by what was checked on the operand above; a refusal
      // still ends this move rather than leaving a value without a check.
      if (makeValue(e, v)) {
        deriveGuard(e, v);
        v.sig = signature(v);
        exploreGuarded(e, std::move(v), depthLeft);
      }
      popTo(before);
    }
  }

  // Guard mode, a for-loop over the partial results of a guarded split
  // reduction: partial sums x_j rescaled to their block's maximum m_j are
  // combined as accum(x_j·exp(m_j - M_j), rescale=M) with M = scan(m_j),
  // so that the sum holds Σ_j x_j·exp(m_j - M) for the overall maximum M.
  void tryWeightedAccum(int i, int depthLeft) {
    if (!loopIsPartial()) return;
    BodyOp logical;
    logical.kind = ir::OpKind::Accum;
    logical.in0 = i;
    if (!canonical(logical)) {
      ++ctx_.stats.duplicates;
      return;
    }
    int maxTensor = vals_[static_cast<size_t>(i)].needsWeight;
    size_t before = ops_.size();
    int mt = tiled_[static_cast<size_t>(maxTensor)];
    if (mt < 0) {
      BodyOp tile;
      tile.kind = ir::OpKind::Tile;
      tile.arg = maxTensor;
      BVal tv;
      if (!makeTile(maxTensor, tile, tv)) return;
      deriveGuard(tile, tv);
      tv.hidden = true;
      tv.sig = signature(tv);
      push(tile, std::move(tv));
      mt = static_cast<int>(vals_.size()) - 1;
    }
    int big = findOp(ir::OpKind::Scan, mt, -1);
    if (big < 0) {
      BodyOp sc;
      sc.kind = ir::OpKind::Scan;
      sc.in0 = mt;
      big = pushRaw(sc);
    }
    int diff = findOp(ir::OpKind::Sub, mt, big);
    if (diff < 0) {
      BodyOp sub;
      sub.kind = ir::OpKind::Sub;
      sub.in0 = mt;
      sub.in1 = big;
      diff = pushRaw(sub);
    }
    int w = findOp(ir::OpKind::Exp, diff, -1);
    if (w < 0) {
      BodyOp e;
      e.kind = ir::OpKind::Exp;
      e.in0 = diff;
      w = pushRaw(e);
    }
    BodyOp mul;
    mul.kind = ir::OpKind::Mul;
    mul.in0 = i;
    mul.in1 = w;
    BVal probe;
    if (!makeValue(mul, probe, true)) {
      popTo(before);
      return;
    }
    int xw = pushRaw(mul);
    BodyOp acc;
    acc.kind = ir::OpKind::Accum;
    acc.in0 = xw;
    acc.in1 = big;
    acc.logical0 = i;
    BVal v;
    makeValue(acc, v, true);  // raw: a weighted accumulator of partials, not asked (sumsOverRightIndex)
    deriveGuard(acc, v);
    v.sig = signature(v);
    exploreGuarded(acc, std::move(v), depthLeft);
    popTo(before);
  }

  void tryMove(BodyOp op, int depthLeft, const BodyOp* second = nullptr) {
    if (!canonical(op)) {
      ++ctx_.stats.duplicates;
      return;
    }
    // A tile of rescaled partial sums is only combined with its weights.
    if (ctx_.guard && op.kind != ir::OpKind::Tile &&
        (vals_[static_cast<size_t>(op.in0)].needsWeight >= 0 ||
         (op.in1 >= 0 && vals_[static_cast<size_t>(op.in1)].needsWeight >= 0)))
      return;
    BVal tile;
    const BVal* found = &tile;
    if (op.kind == ir::OpKind::Tile) {
      if (!makeTile(op.arg, op, tile)) return;
      tile.sig = signature(tile);
    } else {
      bool pruned = false;
      found = makeCached(op, second ? nullptr : &pruned);
      if (pruned) ++ctx_.stats.pruned;
      if (!found) return;
    }
    if (!second && op.kind == ir::OpKind::Tile && ctx_.prune(found->expr)) {
      ++ctx_.stats.pruned;
      return;
    }
    if (!second && duplicateValue(*found)) {
      ++ctx_.stats.duplicates;
      return;
    }
    int cost = op.kind == ir::OpKind::Tile ? 0 : 1;
    // A value that is not one of the program's own terms (up to a constant)
    // is a discrepancy: passes allow more and more of them.
    int disc = (second || op.kind == ir::OpKind::Tile || ctx_.preferred(found->expr)) ? 0 : 1;
    if (disc > discLeft_) {
      ++ctx_.stats.deferred;
      ++ctx_.deferredEver;
      return;
    }
    BVal v = *found;
    deriveGuard(op, v);
    if (second) v.hidden = true;
    push(op, std::move(v));
    // The last discrepancy: every value still to come is one of the
    // program's terms, so an off-program value none of them can read has
    // no completion in this pass (docs/search.md, "Dead ends at the last
    // discrepancy"). Its completions need more discrepancies: deferred.
    if (disc == 1 && discLeft_ == 1 && !allDeadValuesReadable()) {
      ++ctx_.stats.deferred;
      ++ctx_.deferredEver;
      pop();
      return;
    }
    if (second) {
      BodyOp op2 = *second;
      op2.in0 = static_cast<int>(ops_.size()) - 1;
      BVal v2;
      makeValue(op2, v2);
      deriveGuard(op2, v2);
      if (ctx_.prune(v2.expr) || duplicateValue(v2)) {
        ++ctx_.stats.pruned;
        pop();
        return;
      }
      push(op2, std::move(v2));
      cost = 2;
    }
    discLeft_ -= disc;
    descend(depthLeft - cost);
    discLeft_ += disc;
    pop();
    if (second) pop();
  }

  // ---- dead ends at the last discrepancy ----

  // Whether each value no operator reads, that is off the program's terms
  // and equals no target, can still be read by an operator whose value is
  // one of the program's terms (preferred) or hidden on the way to one (a
  // two-step fix), with the other operand an existing value, a tensor's
  // tile or one of the program's terms (any scale). Only in a last kernel
  // (an intermediate kernel saves what nothing reads) of a program without
  // guarded exps (their moves push hidden values of their own), with the
  // prune of unreachable states on. Conservative: a move this cannot
  // decide counts as a reader.
  bool allDeadValuesReadable() {
    if (!final_ || ctx_.guard || !ctx_.pruneUnreachable || ctx_.bruteForce) return true;
    for (size_t i = 0; i < vals_.size(); ++i) {
      const BVal& v = vals_[i];
      if (v.uses > 0 || v.hidden || ctx_.preferred(v.expr)) continue;
      if (ctx_.classesOf(v.expr) & ctx_.targetClassMask()) continue;
      if (!readableToProgramTerm(static_cast<int>(i))) return false;
    }
    return true;
  }

  // Value i's possible readers, as dfs makes them, with a preferred result.
  bool readableToProgramTerm(int i) {
    BVal& a = vals_[static_cast<size_t>(i)];
    // What does not change while the value is in the body (its own moves,
    // and operands pushed before it) is found once.
    if (a.readsToTerm < 0) a.readsToTerm = readableAlone(i) ? 1 : 0;
    if (a.readsToTerm > 0) return true;
    // Operands pushed after it, off the program's terms (a term's or a
    // tile's value is among the operands futureReaders tries).
    for (size_t j = static_cast<size_t>(i) + 1; j < vals_.size(); ++j)
      if (offTermOperand(a, j) && termPair(static_cast<int>(j), i)) return true;
    // With an operand still to come: a program term that no value of this
    // state equals (dfs does not recompute one, and values only add).
    const size_t rank = a.shape.size();
    const FutureReaders& future =
        futureReaders(a.expr, rank >= 2 ? a.shape[rank - 1] : 0, rank >= 2 ? a.shape[rank - 2] : 0);
    if (future.undecided) return true;
    return std::any_of(future.terms.begin(), future.terms.end(),
                       [&](ExprId q) { return !holdsScaleFree(q, a.after, vals_.size()); });
  }

  // Op's value is one of the program's terms, under dfs's refusals, with
  // recomputesValue's over the values up to index `upTo` only (those stay
  // while a value at that index does; a refusal only removes readers).
  bool givesTerm(const BodyOp& op, size_t upTo) {
    BVal r;
    return makeValue(op, r, false, false) && ctx_.preferred(r.expr) &&
           !holdsScaleFree(ctx_.scaleFree(r.expr), r.after, upTo + 1);
  }

  bool offTermOperand(const BVal& a, size_t j) {
    const BVal& b = vals_[j];
    return !b.hidden && b.after == a.after && ops_[j].kind != ir::OpKind::Tile && !ctx_.preferred(b.expr);
  }

  bool pairGivesTerm(int i, int j, size_t upTo) {
    // The expressions first: most pairs give no program term.
    const uint32_t termKinds =
        ctx_.pairTermKinds(vals_[static_cast<size_t>(i)].expr, vals_[static_cast<size_t>(j)].expr);
    for (size_t n = 0; n < ctx_.binaryKinds.size(); ++n) {
      const ir::OpKind k = ctx_.binaryKinds[n];
      if (ir::isElementwiseBinary(k) && n < 32 && !(termKinds >> n & 1)) continue;
      BodyOp op;
      op.kind = k;
      op.in0 = i;
      op.in1 = j;
      if (givesTerm(op, upTo)) return true;
      std::swap(op.in0, op.in1);
      if (givesTerm(op, upTo)) return true;
    }
    return false;
  }

  // Value i's readers that dfs makes from it alone or with a value pushed
  // before it, to one of the program's terms.
  bool readableAlone(int i) {
    const BVal& a = vals_[static_cast<size_t>(i)];
    const size_t upTo = static_cast<size_t>(i);
    auto unaryOp = [&](ir::OpKind k) {
      BodyOp op;
      op.kind = k;
      op.in0 = i;
      return op;
    };
    for (ir::OpKind k : ctx_.unaryKinds)
      if (givesTerm(unaryOp(k), upTo)) return true;
    for (const NumberOps* ops : {&ctx_.scalarOps, &ctx_.numberOps, &ctx_.numberFirstOps})
      for (const auto& [k, c] : *ops) {
        BodyOp op = unaryOp(k);
        op.hasScalar = true;
        op.scalarFirst = ops == &ctx_.numberFirstOps;
        op.scalar = c;
        if (givesTerm(op, upTo)) return true;
      }
    for (size_t d = 0; d < a.labels.size(); ++d) {
      if (a.labels[d] == kUnit || a.shape[d] == 1) continue;
      BodyOp op = unaryOp(ir::OpKind::ReduceSum);
      op.dim = static_cast<int>(d);
      if (givesTerm(op, upTo)) return true;
      op.kind = ir::OpKind::ReduceMax;
      if (givesTerm(op, upTo)) return true;
      if (partialOf(a.labels[d]) && innerOf(a.labels[d]) != kUnit) {
        op.kind = ir::OpKind::ReduceSum;
        op.reduceToInner = innerOf(a.labels[d]);
        if (givesTerm(op, upTo)) return true;
      }
    }
    if (cfg_.loop != kUnit) {
      BodyOp op = unaryOp(ir::OpKind::Accum);
      op.in1 = a.scan >= 0 ? a.scan : -1;
      if (givesTerm(op, upTo)) return true;
      op.in1 = -1;
      op.accumMax = true;
      if (givesTerm(op, upTo)) return true;
    }
    // A fix scales and shifts the value to an exact argument (tryFixes).
    for (ExprId p : ctx_.fixArgs)
      if (ctx_.exprs.equalUpToScale(ctx_.exprs.splitConstant(p).first, a.expr)) return true;
    for (int j = 0; j <= i; ++j)
      if (termPair(i, j)) return true;
    return false;
  }

  // A binary operator of value i and value j <= i, both off the program's
  // terms, gives one. Each pair is decided once while value i is in the
  // body (the values up to i stay while it does), and only when asked:
  // most questions need one bit, or any bit. From index 64 on, always.
  bool termPair(int i, int j) {
    if (i >= 64) return true;
    BVal& a = vals_[static_cast<size_t>(i)];
    const uint64_t bit = uint64_t{1} << j;
    if (!(a.termPairsKnown & bit)) {
      a.termPairsKnown |= bit;
      if (offTermOperand(a, static_cast<size_t>(j)) && pairGivesTerm(i, j, static_cast<size_t>(i))) a.termPairs |= bit;
    }
    return (a.termPairs & bit) != 0;
  }

  // The program terms (scale-free) a binary operator makes of `e` and an
  // operand still to come: one of the program's terms at any scale or a
  // tensor's tile (all a move at no discrepancy makes). A product, quotient
  // or contraction is its own result (a matmul contracts e's last dim,
  // `asLeft` elements in a block, or its second last, `asRight`; 0 where e
  // has fewer than two dims); a sum or difference e + c·p = α·q needs e's
  // every monomial but a constant in p or q. Other kinds (maximum,
  // minimum) are not decided here.
  const FutureReaders& futureReaders(ExprId e, int64_t asLeft, int64_t asRight) {
    const auto key = std::make_tuple(e, asLeft, asRight);
    if (auto it = futureReaders_.find(key); it != futureReaders_.end()) return it->second;
    ExprTable& ex = ctx_.exprs;
    std::vector<ExprId> operands(ctx_.preferredSet.begin(), ctx_.preferredSet.end());
    for (const Tensor& t : plan_.tensors)
      if (t.expr >= 0) operands.push_back(t.expr);
    FutureReaders f;
    auto add = [&](ExprId r) {
      if (ctx_.preferred(r)) f.terms.push_back(ctx_.scaleFree(r));
    };
    for (ir::OpKind k : ctx_.binaryKinds) {
      if (k == ir::OpKind::Add || k == ir::OpKind::Sub) {
        for (ExprId q : ctx_.preferredSet)
          if (std::any_of(operands.begin(), operands.end(), [&](ExprId p) { return monomialsCovered(e, p, q); }))
            f.terms.push_back(q);
      } else if (k == ir::OpKind::Mul || k == ir::OpKind::Div) {
        for (ExprId p : operands) {
          add(ex.binary(k, e, p));
          add(ex.binary(k, p, e));
        }
      } else if (k == ir::OpKind::Matmul) {
        for (ExprId p : operands)
          for (int64_t contracted : {asLeft, asRight})
            if (contracted > 0) add(ex.sum(ex.mul(e, p), contracted));
      } else {
        f.undecided = true;
      }
    }
    std::sort(f.terms.begin(), f.terms.end());
    f.terms.erase(std::unique(f.terms.begin(), f.terms.end()), f.terms.end());
    return futureReaders_.emplace(key, std::move(f)).first->second;
  }

  // Every monomial of e but a constant is one of p's or q's (coefficients aside).
  bool monomialsCovered(ExprId e, ExprId p, ExprId q) const {
    const ExprTable& ex = ctx_.exprs;
    auto holds = [&](ExprId in, const Monomial& m) {
      return std::any_of(ex.poly(in).terms.begin(), ex.poly(in).terms.end(), [&](const Monomial& t) {
        return t.degree == m.degree && t.factors == m.factors;
      });
    };
    for (const Monomial& m : ex.poly(e).terms)
      if (!(m.factors.empty() && m.degree == 1) && !holds(p, m) && !holds(q, m)) return false;
    return true;
  }

  // The moves every completion of this (last) kernel must still make, at
  // least (each costs at least one of the body's operators): one per
  // needed atom no value or tensor has yet (each such operator creates one
  // atom), and one per class no value or tensor equals yet (a target, or
  // the argument of a missing atom), except a class that is itself a
  // missing atom (its operator may be the atom's); and half the dead
  // values. One operator's value is in at most one class (classes differ
  // beyond scale), so the operators counted are distinct.
  int operatorsStillNeeded() const {
    auto [atoms, classes] = present_.empty() ? std::make_pair(tensorAtoms_, tensorClasses_) : present_.back();
    const uint64_t missingAtoms = ~atoms & ((uint64_t{1} << ctx_.neededAtoms.size()) - 1);
    int n = std::popcount(missingAtoms);
    for (size_t c = 0; c < ctx_.classExprs.size() && c < 63; ++c) {
      if (classes & (uint64_t{1} << c)) continue;
      // An atom's argument is needed only while the atom is.
      const uint64_t neededWhile = ctx_.classNeededWhile[c];
      if (neededWhile != 0 && (neededWhile & missingAtoms) == 0) continue;
      const int a = ctx_.atomOfClass[c];
      if (a >= 0 && (missingAtoms & (uint64_t{1} << a))) continue;
      ++n;
    }
    // An emitted body has no dead value (tryComplete): every value that no
    // operator reads and that equals no target must be read by an operator
    // still to come, and one move reads at most two values that exist
    // before it (the guard's composite moves and the two-step fixes read
    // one, their hidden values are read inside the move).
    int dead = 0;
    for (size_t i = 0; i < vals_.size(); ++i) {
      const BVal& v = vals_[i];
      if (v.uses > 0 || v.hidden) continue;
      if (ctx_.classesOf(v.expr) & ctx_.targetClassMask()) continue;
      ++dead;
    }
    return std::max(n, (dead + 1) / 2);
  }

  // `beaten()` (a bound test of this state) holds: the prune is counted,
  // and counted as the bet's where the aspiration decided it
  // (Context::aspiration).
  template <typename Beaten>
  bool prunedByBound(const Beaten& beaten) {
    ctx_.aspirationDecided = false;
    ctx_.aspirationLeastInCheck = std::numeric_limits<double>::infinity();
    if (!beaten()) return false;
    ++ctx_.stats.prunedByBound;
    if (ctx_.aspirationDecided) {
      ++ctx_.aspirationPrunesEver;
      ctx_.aspirationLeastPruned = std::min(ctx_.aspirationLeastPruned, ctx_.aspirationLeastInCheck);
    }
    return true;
  }

  void dfs(int depthLeft) {
    if (ctx_.stopped()) return;
    // No completion within the operators left (docs/search.md, "Needed
    // operators"): not a bound, the subtree emits nothing.
    if (final_ && ctx_.pruneUnreachable && !ctx_.bruteForce && operatorsStillNeeded() > std::max(0, depthLeft)) {
      ++ctx_.stats.pruned;
      return;
    }
    if (prunedByBound([&] { return overBound(); })) return;
    ResumeScope walks(*this);
    ++ctx_.stats.states;
    const SaturationScope saturation(*this, depthLeft);
    if (final_) {
      if (tryComplete()) return;
    } else {
      tryClose();
    }
    if (depthLeft <= 0) return;
    int n = static_cast<int>(vals_.size());
    prefetchNewestOutcomes();
    // Tiles of the tensors not yet in the kernel.
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      if (tiled_[t] < 0) {
        BodyOp op;
        op.kind = ir::OpKind::Tile;
        op.arg = static_cast<int>(t);
        tryMove(op, depthLeft);
      }
    for (int i = 0; i < n; ++i) {
      const BVal& a = vals_[static_cast<size_t>(i)];
      if (a.hidden) continue;
      // Element-wise unary operators of the program.
      for (ir::OpKind k : ctx_.unaryKinds) {
        if (k == ir::OpKind::Exp && ctx_.guard) {
          if (a.needsWeight < 0) tryGuardedExp(i, depthLeft);
          continue;
        }
        BodyOp op;
        op.kind = k;
        op.in0 = i;
        tryMove(op, depthLeft);
      }
      // The program's operators with a number (maximum(x, 0), ...).
      for (const auto& [k, c] : ctx_.scalarOps) {
        BodyOp op;
        op.kind = k;
        op.in0 = i;
        op.hasScalar = true;
        op.scalar = c;
        tryMove(op, depthLeft);
      }
      // The program's scales and shifts by a number, to its exact values only
      // (0.044715·h³ of a tanh-GELU; see numberOps).
      for (const auto& [k, c] : ctx_.numberFirstOps) {
        BodyOp op;
        op.kind = k;
        op.in0 = i;
        op.hasScalar = op.scalarFirst = true;
        op.scalar = c;
        const BVal* r = makeCached(op);
        if (r && ctx_.isProgramValue(r->expr)) tryMove(op, depthLeft);
      }
      for (const auto& [k, c] : ctx_.numberOps) {
        BodyOp op;
        op.kind = k;
        op.in0 = i;
        op.hasScalar = true;
        op.scalar = c;
        const BVal* r = makeCached(op);
        if (!r || !ctx_.isProgramValue(r->expr)) continue;
        // A fix makes the same move (tryFixes): exploring it twice would
        // search the same subtree twice.
        if (std::find(ctx_.fixArgs.begin(), ctx_.fixArgs.end(), r->expr) != ctx_.fixArgs.end()) continue;
        tryMove(op, depthLeft);
      }
      if (ctx_.transposeTiles && ops_[static_cast<size_t>(i)].kind == ir::OpKind::Tile && a.shape.size() >= 2) {
        BodyOp op;
        op.kind = ir::OpKind::Transpose;
        op.in0 = i;
        op.dim = static_cast<int>(a.shape.size()) - 2;
        op.dim1 = static_cast<int>(a.shape.size()) - 1;
        tryMove(op, depthLeft);
      }
      // Reductions.
      for (size_t d = 0; d < a.labels.size(); ++d) {
        Label l = a.labels[d];
        if (l == kUnit || a.shape[d] == 1) continue;
        // Only indices the program itself reduces over (partial results of
        // split reductions included) may be reduced.
        if (!partialOf(l) && !ctx_.labels->reduced[static_cast<size_t>(l)]) continue;
        BodyOp op;
        op.kind = ir::OpKind::ReduceSum;
        op.in0 = i;
        op.dim = static_cast<int>(d);
        if (partialOf(l) && innerOf(l) != kUnit) {
          BodyOp inner = op;
          inner.reduceToInner = innerOf(l);
          tryMove(inner, depthLeft);
        }
        tryMove(op, depthLeft);
        if (ctx_.hasReduceMax && !partialOf(l)) {
          op.kind = ir::OpKind::ReduceMax;
          tryMove(op, depthLeft);
        }
      }
      // Accumulation over the for-loop of a value that no longer runs over
      // the loop's index.
      // Accumulating a value that is the same in every step only scales it.
      if (cfg_.loop != kUnit && !a.after && a.variant &&
          std::find(a.labels.begin(), a.labels.end(), cfg_.loop) == a.labels.end()) {
        if (ctx_.guard && a.needsWeight >= 0) {
          tryWeightedAccum(i, depthLeft);
        } else if (a.scan != -2 && (a.scan >= 0 || !accumNeedsScan())) {
          BodyOp op;
          op.kind = ir::OpKind::Accum;
          op.in0 = i;
          op.in1 = a.scan;  // rescale=scan where it depends on a running maximum
          tryMove(op, depthLeft);
        }
      }
      // Scaling and shifting to an exact argument of a function in the target.
      if (depthLeft >= 1) tryFixes(i, depthLeft);
      // Binary operators. The canonical order admits an operator of a
      // smaller kind than the last one only when it reads the last value,
      // so most pairs are skipped before any work.
      int last = n - 1;
      int lastKind = ops_.empty() ? -1 : static_cast<int>(ops_.back().kind);
      for (ir::OpKind k : ctx_.binaryKinds) {
        bool commutative = ir::isCommutative(k);
        bool onlyWithLast = !ctx_.bruteForce && static_cast<int>(k) < lastKind;
        if (onlyWithLast && i != last) {
          // Only (i, last) can qualify.
          const BVal& b = vals_[static_cast<size_t>(last)];
          if (b.hidden || a.after != b.after || (commutative && last < i)) continue;
          BodyOp op;
          op.kind = k;
          op.in0 = i;
          op.in1 = last;
          tryMove(op, depthLeft);
          continue;
        }
        for (int j = 0; j < n; ++j) {
          const BVal& b = vals_[static_cast<size_t>(j)];
          if (b.hidden || a.after != b.after) continue;
          if ((commutative && j < i) || (!commutative && i == j)) continue;
          if (k == ir::OpKind::Mul && i == j && ctx_.hasSquare) continue;  // square(x)
          BodyOp op;
          op.kind = k;
          op.in0 = i;
          op.in1 = j;
          tryMove(op, depthLeft);
        }
      }
    }
  }

  void tryFixes(int i, int depthLeft) {
    const BVal& a = vals_[static_cast<size_t>(i)];
    ExprTable& ex = ctx_.exprs;
    for (ExprId p : ctx_.fixArgs) {
      if (p == a.expr) continue;
      auto [rest, shift] = ex.splitConstant(p);
      Rational ratio;
      if (ex.isConstant(rest) || !ex.equalUpToScale(rest, a.expr, &ratio)) continue;
      BodyOp scaleOp, shiftOp;
      scaleOp.kind = ir::OpKind::Mul;
      scaleOp.hasScalar = true;
      scaleOp.scalar = ratio;
      scaleOp.in0 = i;
      shiftOp.kind = ir::OpKind::Add;
      shiftOp.hasScalar = true;
      shiftOp.scalar = shift;
      bool needScale = ratio != Rational(1), needShift = !shift.isZero();
      if (needScale && needShift) {
        if (depthLeft >= 2) tryMove(scaleOp, depthLeft, &shiftOp);
      } else if (needScale) {
        tryMoveExact(scaleOp, depthLeft);
      } else if (needShift) {
        shiftOp.in0 = i;
        tryMoveExact(shiftOp, depthLeft);
      }
    }
  }

  // A fix whose result is scale-equal to its operand: skips the
  // duplicate-up-to-scale rule but still requires a new exact value.
  void tryMoveExact(const BodyOp& op, int depthLeft) {
    if (ctx_.guard && vals_[static_cast<size_t>(op.in0)].needsWeight >= 0) return;
    BVal v;
    makeValue(op, v);
    deriveGuard(op, v);
    if (ctx_.prune(v.expr) || duplicateValue(v) || !canonical(op)) return;
    push(op, std::move(v));
    descend(depthLeft - 1);
    pop();
  }

  // ---- saving results ----

  struct SaveInfo {
    BodyShape shape;
    BodyLabels labels;
    ir::DimMap omap = ir::kEmptyMap;
  };

  bool saveInfo(int value, SaveInfo& s, Label* newPartial) const {
    const BVal& v = vals_[static_cast<size_t>(value)];
    s.shape = v.shape;
    s.labels = v.labels;
    std::vector<char> used(v.shape.size(), 0);
    for (size_t a = 0; a < cfg_.grid.size(); ++a) {
      Label c = cfg_.grid[a].label;
      int dim = -1;
      for (size_t d = 0; d < v.labels.size(); ++d)
        if (v.labels[d] == c) dim = static_cast<int>(d);
      if (dim < 0 && cfg_.grid[a].split) {
        // Partial results of the blocks along this axis side by side in the
        // innermost dim nothing else writes.
        for (int d = static_cast<int>(v.labels.size()) - 1; d >= 0; --d)
          if (!used[static_cast<size_t>(d)] && !partialOf(v.labels[static_cast<size_t>(d)])) {
            bool mappedLater = false;
            for (size_t b = a + 1; b < cfg_.grid.size(); ++b)
              for (size_t e = 0; e < v.labels.size(); ++e)
                if (static_cast<int>(e) == d && v.labels[e] == cfg_.grid[b].label) mappedLater = true;
            if (mappedLater) continue;
            dim = d;
            break;
          }
        if (dim < 0) return false;
        s.labels[static_cast<size_t>(dim)] = composite(v.labels[static_cast<size_t>(dim)], *newPartial);
      }
      if (dim < 0 || used[static_cast<size_t>(dim)]) return false;
      used[static_cast<size_t>(dim)] = 1;
      s.omap[a] = dim;
      s.shape[static_cast<size_t>(dim)] *= cfg_.parts[a];
    }
    return true;
  }

  // Keeps the ops that `roots` depend on, renumbered; tile args become
  // kernel argument indices.
  KernelTemplate buildTemplate(const std::vector<int>& roots, std::vector<int>* valueMap) const {
    std::vector<char> live(ops_.size(), 0);
    for (int r : roots) live[static_cast<size_t>(r)] = 1;
    for (int i = static_cast<int>(ops_.size()) - 1; i >= 0; --i) {
      if (!live[static_cast<size_t>(i)]) continue;
      const BodyOp& op = ops_[static_cast<size_t>(i)];
      if (op.in0 >= 0) live[static_cast<size_t>(op.in0)] = 1;
      if (op.in1 >= 0) live[static_cast<size_t>(op.in1)] = 1;
    }
    KernelTemplate k;
    k.grid = cfg_.grid;
    k.loop = cfg_.loop;
    valueMap->assign(ops_.size(), -1);
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (!live[i]) continue;
      BodyOp op = ops_[i];
      if (op.in0 >= 0) op.in0 = (*valueMap)[static_cast<size_t>(op.in0)];
      if (op.in1 >= 0) op.in1 = (*valueMap)[static_cast<size_t>(op.in1)];
      if (op.kind == ir::OpKind::Tile) {
        k.args.push_back(op.arg);
        op.arg = static_cast<int>(k.args.size()) - 1;
      }
      (*valueMap)[i] = static_cast<int>(k.ops.size());
      k.ops.push_back(op);
    }
    return k;
  }

  // The body has a tile from each mask of carriers_ (a completion needs one).
  bool hasCarriedTiles() const {
    return std::all_of(carriers_.begin(), carriers_.end(), [&](uint64_t c) { return (tileMask_ & c) != 0; });
  }

  // Final kernel: does the body compute every output? Emits the plan.
  bool tryComplete() {
    if (!hasCarriedTiles()) return false;
    const ir::Graph& g = *ctx_.program;
    bool needAccum = cfg_.loop == kUnit;
    std::vector<int> chosen;
    std::vector<Rational> ratios;
    std::vector<SaveInfo> infos;
    for (size_t o = 0; o < g.outputs.size(); ++o) {
      ir::ValueId ov = g.outputs[o];
      const ir::Shape& oshape = g.value(ov).shape;
      const Labels& olabels = ctx_.labels->ofValue[static_cast<size_t>(ov)];
      int found = -1;
      for (int i = static_cast<int>(vals_.size()) - 1; i >= 0 && found < 0; --i) {
        const BVal& v = vals_[static_cast<size_t>(i)];
        if (v.hidden || v.after == needAccum) continue;
        Rational r;
        if (!ctx_.exprs.equalUpToScale(v.expr, ctx_.targets[o], &r)) continue;
        SaveInfo s;
        Label none = 0;
        if (!saveInfo(i, s, &none) || s.shape != oshape || s.labels != olabels) continue;
        found = i;
        ratios.push_back(Rational(1) / r);
        infos.push_back(s);
      }
      if (found < 0) return false;
      chosen.push_back(found);
    }
    std::vector<int> valueMap;
    KernelTemplate k = buildTemplate(chosen, &valueMap);
    // A body with a dead value is a superset of one without it, which is
    // (or will be) emitted on its own: emit each body once.
    if (k.ops.size() != ops_.size()) return true;
    for (size_t o = 0; o < chosen.size(); ++o) {
      int v = valueMap[static_cast<size_t>(chosen[o])];
      if (ratios[o] != Rational(1)) {
        BodyOp s;
        s.kind = ir::OpKind::Mul;
        s.hasScalar = true;
        s.scalar = ratios[o];
        s.in0 = v;
        v = appendBodyOp(k, s);
      }
      if (needAccum) v = appendAccum(k, v);
      k.saved.push_back(v);
      k.savedOmap.push_back(infos[o].omap);
      k.savedF32.push_back(0);
    }
    // Every result of an earlier kernel must be read by a later one.
    std::vector<char> read(plan_.tensors.size(), 0);
    for (const KernelTemplate& prev : plan_.kernels)
      for (int t : prev.args) read[static_cast<size_t>(t)] = 1;
    for (int t : k.args) read[static_cast<size_t>(t)] = 1;
    for (size_t t = 0; t < plan_.tensors.size(); ++t)
      if (plan_.tensors[t].kernel >= 0 && !read[t]) return true;
    Plan done = plan_;
    for (size_t o = 0; o < chosen.size(); ++o) {
      Tensor out;
      out.shape = infos[o].shape.toVector();
      out.labels = infos[o].labels.toVector();
      out.expr = ctx_.targets[o];
      out.kernel = static_cast<int>(done.kernels.size());
      out.index = static_cast<int>(o);
      done.outputs.push_back(static_cast<int>(done.tensors.size()));
      done.tensors.push_back(out);
    }
    done.kernels.push_back(std::move(k));
    if (canBound_) done.floorUs = ctx_.checkAncestorBounds ? ancestorsFloor() : stateFloor();
    // Tests: the bounds the closed kernels had when they closed are checked
    // against the cost too.
    if (canBound_ && ctx_.checkAncestorBounds) {
      for (double b : ctx_.closeBounds) done.floorUs = std::max(done.floorUs, b);
      if (!bodyHasExp())
        for (double b : ctx_.closeBoundsIfLastReadsExps) done.floorUs = std::max(done.floorUs, b);
    }
    ++ctx_.stats.templates;
    ++ctx_.templatesEver;
    ctx_.emit(done);
    return true;
  }

  // Tests (Options::checkAncestorBounds): the largest lower bound of this
  // state and of every state on the way to it in this kernel (the prefixes
  // of its operators), each of which must be at most the cost of this
  // completion. The operators are popped and pushed back in order, which
  // restores every count. A prefix that ends inside a composite move (its
  // last value hidden: the guard's reduce_max, scan and sub before their
  // exp) is no state: dfs never sees it.
  double ancestorsFloor() {
    double most = stateFloor();
    std::vector<BodyOp> ops(ops_.begin(), ops_.end());
    std::vector<BVal> vals(vals_.begin(), vals_.end());
    while (!ops_.empty()) {
      pop();
      if (vals_.empty() || !vals_.back().hidden) most = std::max(most, stateFloor());
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      BVal v = vals[i];
      v.uses = 0;
      push(ops[i], std::move(v));
    }
    return most;
  }

  // What the search of the kernels after a closed one depends on besides
  // the closed floor and the discrepancies left: the plan's tensors (shape,
  // labels, expression, producer, the maxima they carry, the bytes a
  // kernel saved them with), which tensors the closed kernels read, the
  // grid labels that partial labels count, and how many kernels the plan
  // has (Context::beaten). The closed kernels' bodies are not part of it.
  std::string restKey() const {
    MemoKey key;
    key.put('n').put(ctx_.planKernels).put(kernelsLeft_ - 1);
    for (const Tensor& t : plan_.tensors)
      key.put('T')
          .put(t.expr)
          .put(t.kernel)
          .put(t.index)
          .put(t.maxTensor)
          .put(plan_.savedF32(t))
          .putAll(t.labels)
          .putAll(t.shape);
    std::vector<char> read(plan_.tensors.size(), 0);
    for (const KernelTemplate& k : plan_.kernels)
      for (int a : k.args) read[static_cast<size_t>(a)] = 1;
    key.put('R').putAll(read);
    putPartialLabels(key);
    return std::move(key.bytes);
  }

  // The grid labels that the plan's partial labels count, in order.
  void putPartialLabels(MemoKey& key) const {
    for (size_t p = 1; p < plan_.partialAxis.size(); ++p) {
      auto [pk, pa] = plan_.partialAxis[p];
      key.put('P').put(plan_.kernels[static_cast<size_t>(pk)].grid[static_cast<size_t>(pa)].label);
    }
  }

  // Searches the kernels after the one just closed, unless the same search
  // emitted nothing before with a closed floor no higher and at least as
  // many discrepancies left: every state it would prune by bound was
  // pruned then (the best only improves, the floors only rise), every
  // other state is one it visited then, so it would emit nothing now.
  // Where that search refused a move for its budget, or ran with more
  // budget, the skip counts as a refused move (the saturated-pass rule of
  // search.cpp must not take this pass for complete).
  void searchRest() {
    if (!bounding_ || ctx_.bruteForce || !ctx_.skipBarren) {
      searchKernels(ctx_, plan_, kernelsLeft_ - 1, discLeft_, -1);
      return;
    }
    std::string key = restKey();
    if (auto it = ctx_.barren.find(key); it != ctx_.barren.end() &&
                                         it->second.closedFloorUs <= ctx_.closedFloorUs &&
                                         it->second.discrepancies >= discLeft_) {
      if (it->second.deferred || it->second.discrepancies > discLeft_) ++ctx_.deferredEver;
      ++ctx_.stats.duplicates;
      return;
    }
    const int64_t templatesBefore = ctx_.templatesEver, deferredBefore = ctx_.deferredEver,
                  tiesBefore = ctx_.tiesLostEver, betBefore = ctx_.aspirationPrunesEver;
    searchKernels(ctx_, plan_, kernelsLeft_ - 1, discLeft_, -1);
    if (ctx_.templatesEver != templatesBefore || ctx_.stopped()) return;
    // A bet's prunes left states unvisited that a later run visits.
    if (ctx_.aspirationPrunesEver != betBefore) return;
    // A state pruned for losing a tie lost it by its whole tie key, which
    // starts with the closed kernels' bodies: after other closed kernels
    // with the same key here, the same completions may win (softcap
    // attention returned either of two equal two-kernel plans, by which
    // first kernel was closed first). Such a search is not barren.
    if (ctx_.tiesLostEver != tiesBefore) return;
    if (ctx_.barren.size() > 100000) ctx_.barren.clear();  // bounded memory
    const Context::BarrenSearch now{ctx_.closedFloorUs, discLeft_, ctx_.deferredEver != deferredBefore};
    auto [it, inserted] = ctx_.barren.emplace(std::move(key), now);
    // Of two records neither of which covers the other, the newer is kept.
    if (!inserted) it->second = now;
  }

  // Intermediate kernel: when the body is closed (no dead value; its
  // after-loop sinks are new tensors that belong to an output), save the
  // sinks and search the next kernel.
  void tryClose() {
    if (!hasCarriedTiles()) return;
    bool noLoop = cfg_.loop == kUnit;
    std::vector<int> sinks;
    for (size_t i = 0; i < vals_.size(); ++i) {
      const BVal& v = vals_[i];
      if (v.uses > 0) continue;
      if (v.after == noLoop) return;  // a dead value: this body is a superset of a smaller one
      if (ops_[i].kind == ir::OpKind::Tile) return;
      sinks.push_back(static_cast<int>(i));
    }
    if (sinks.empty()) return;
    // A kernel that saves guarded partials saves only its scan-rescaled
    // sums (initGuardedSplit): a value made after the loop from them keeps
    // its block's shift or normalization, and its block's maximum and sum
    // are not saved with it, so no later kernel can weight it.
    if (savesGuardedPartials_)
      for (int sk : sinks) {
        const BodyOp& op = ops_[static_cast<size_t>(sk)];
        if (op.kind != ir::OpKind::Accum || op.in1 < 0 || op.accumMax) return;
      }
    Label partial = static_cast<Label>(plan_.partialAxis.size());
    std::vector<SaveInfo> infos;
    for (int s : sinks) {
      const BVal& v = vals_[static_cast<size_t>(s)];
      if (ctx_.exprs.isConstant(v.expr)) return;
      for (const Tensor& t : plan_.tensors)
        if (ctx_.exprs.equalUpToScale(v.expr, t.expr) && t.labels == v.labels) return;  // nothing new
      SaveInfo info;
      if (!saveInfo(s, info, &partial)) return;
      infos.push_back(info);
    }
    std::vector<int> valueMap;
    KernelTemplate k = buildTemplate(sinks, &valueMap);
    // In a bf16 program a result passed between kernels is kept in f32: 8
    // bits of mantissa make logits near 100 off by up to 0.25, and every
    // exp of them by up to 25% (the cost model charges the bytes).
    const char keepF32 = ctx_.program->dtype == ir::DType::BF16 ? 1 : 0;
    for (int s : sinks) {
      int v = valueMap[static_cast<size_t>(s)];
      if (noLoop) v = appendAccum(k, v);
      k.saved.push_back(v);
      k.savedF32.push_back(keepF32);
    }
    for (const SaveInfo& info : infos) k.savedOmap.push_back(info.omap);
    // A guarded split reduction: each block's sums are rescaled to its own
    // running maximum, so the block's maximum is saved beside them (after
    // the loop, accum(reduce_max(s), op=max) equals the last scan), in f32:
    // rounded to bf16, a maximum near 100 is off by up to 0.25, and so is
    // every exponent a later kernel computes from it.
    bool split = std::any_of(cfg_.grid.begin(), cfg_.grid.end(), [](const GridAxis& a) { return a.split; });
    std::vector<int> scans;           // value numbers of the scans the sinks rescale by
    std::vector<int> maxOfSink(sinks.size(), -1);  // index into scans
    if (split)
      for (size_t s = 0; s < sinks.size(); ++s) {
        const BodyOp& op = ops_[static_cast<size_t>(sinks[s])];
        if (op.kind != ir::OpKind::Accum || op.in1 < 0) continue;
        auto it = std::find(scans.begin(), scans.end(), op.in1);
        maxOfSink[s] = static_cast<int>(it - scans.begin());
        if (it == scans.end()) scans.push_back(op.in1);
      }
    std::vector<SaveInfo> maxInfos;
    for (int sc : scans) {
      int rm = ops_[static_cast<size_t>(sc)].in0;
      SaveInfo info;
      if (!saveInfo(rm, info, &partial)) return;
      BodyOp acc;
      acc.kind = ir::OpKind::Accum;
      acc.accumMax = true;
      acc.in0 = valueMap[static_cast<size_t>(rm)];
      k.saved.push_back(appendBodyOp(k, acc));
      k.savedOmap.push_back(info.omap);
      k.savedF32.push_back(1);
      maxInfos.push_back(info);
    }

    // This kernel is now fixed: its own lower bound (its tiles, its saves)
    // joins the plan's, and the plan stops here if that is already too much.
    const double closedBefore = ctx_.closedFloorUs;
    if (canBound_) {
      const ExpCaseScope scope(*this);
      setClosedExpCase();
      std::vector<FloorSave> saves;
      // Each result is also read by a later kernel (tryComplete emits no
      // plan with an unread one): its bytes join the future's.
      double savedBytes = 0;
      auto save = [&](const SaveInfo& info, int bytes) {
        saves.push_back({info.labels.toVector(), bytes});
        savedBytes += static_cast<double>(ir::numElements(info.shape.toVector())) * bytes;
      };
      for (const SaveInfo& info : infos) save(info, elementBytes(keepF32));
      for (const SaveInfo& info : maxInfos) save(info, elementBytes(true));
      const std::vector<int> tiles = maskTensors(tileMask_);
      const FloorPoints points = kernelFloorPoints(ctx_, plan_, cfg_.grid, cfg_.loop, tiles, saves, partial);
      const auto whole = [&] {
        return kernelFloorPoints(ctx_, plan_, cfg_.grid, cfg_.loop, tiles, saves, partial, true);
      };
      ctx_.closedFloorUs += leastWithOperators(*points, whole);
      // Saved block maxima mark guarded partials: the kernel that reads
      // them walks them with a for-loop of this kernel's blocks along the
      // split axis (tryWeightedAccum, loopOptions), at each extent choice.
      const int axis = scans.empty() || !ctx_.chargePartialLoops ? -1 : lastSplitAxis();
      const auto boundWithFuture = [&] {
        const double futureBytes = futureBytesFor(tileMask_, savedBytes);
        const double least = futureUs(futureBytes);
        return axis < 0 ? ctx_.closedFloorUs + least
                        : closedBefore + leastWithOperators(*points, whole, least, [&](const FloorPoint& p) {
                            return futureUs(futureBytes, stepsAt(p, axis));
                          });
      };
      const double closeBound = boundWithFuture();
      if (bounding_ && prunedByBound([&] { return beatenHere(closeBound); })) {
        ctx_.closedFloorUs = closedBefore;
        return;
      }
      if (ctx_.checkAncestorBounds) {
        ctx_.closeBounds.push_back(closeBound);
        // Tests: the bound the states before this close had in the half of
        // the case *here* where the last kernel makes no exp
        // (overBoundInCase), at this kernel's own floor.
        double ifLastReadsExps = 0;
        if (expCases_ && bodyHasExp() && (flowTensors_ & ~tileMask_) && expsReadBytes_ > 0) {
          setFutureFloorFor(tileMask_);
          ifLastReadsExps = boundWithFuture();
        }
        ctx_.closeBoundsIfLastReadsExps.push_back(ifLastReadsExps);
      }
    }
    int kernelIndex = static_cast<int>(plan_.kernels.size());
    size_t tensorsBefore = plan_.tensors.size();
    bool usesPartial = false;
    for (size_t s = 0; s < sinks.size(); ++s) {
      Tensor t;
      t.shape = infos[s].shape.toVector();
      t.labels = infos[s].labels.toVector();
      for (Label l : t.labels) usesPartial = usesPartial || partialOf(l) == partial;
      // With a for-loop of one iteration the saved accum is the value itself.
      t.expr = vals_[static_cast<size_t>(sinks[s])].expr;
      t.kernel = kernelIndex;
      t.index = static_cast<int>(s);
      if (maxOfSink[s] >= 0) t.maxTensor = static_cast<int>(tensorsBefore + sinks.size()) + maxOfSink[s];
      plan_.tensors.push_back(t);
    }
    for (size_t m = 0; m < scans.size(); ++m) {
      Tensor t;
      t.shape = maxInfos[m].shape.toVector();
      t.labels = maxInfos[m].labels.toVector();
      for (Label l : t.labels) usesPartial = usesPartial || partialOf(l) == partial;
      int rm = ops_[static_cast<size_t>(scans[m])].in0;
      t.expr = ctx_.exprs.max(vals_[static_cast<size_t>(rm)].expr, cfg_.forloop);
      t.kernel = kernelIndex;
      t.index = static_cast<int>(sinks.size() + m);
      plan_.tensors.push_back(t);
    }
    if (usesPartial) plan_.partialAxis.push_back({kernelIndex, lastSplitAxis()});
    plan_.kernels.push_back(std::move(k));
    searchRest();
    if (canBound_ && ctx_.checkAncestorBounds) {
      ctx_.closeBounds.pop_back();
      ctx_.closeBoundsIfLastReadsExps.pop_back();
    }
    plan_.kernels.pop_back();
    if (usesPartial) plan_.partialAxis.pop_back();
    plan_.tensors.resize(tensorsBefore);
    ctx_.closedFloorUs = closedBefore;
  }

 public:
  static void searchKernels(Context& ctx, Plan& plan, int kernelsLeft, int discrepancies, int only);
};

void BodySearch::searchKernels(Context& ctx, Plan& plan, int kernelsLeft, int discrepancies, int only) {
  bool final = kernelsLeft == 1;
  std::vector<Config> configs = enumerateConfigs(ctx, plan, final);
  // The last kernel's floors (lastFloorFor) depend on the plan, which every
  // configuration here shares: a middle kernel's configurations, a hundred
  // or more after each first kernel QKNorm+GQA closes, each asked for them
  // afresh (key and memo look-up) at their root.
  std::vector<LastFloor> sharedLastFloors;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (only >= 0 && static_cast<int>(i) != only) continue;
    if (ctx.stopped()) return;
    BodySearch body(ctx, plan, configs[i], final, kernelsLeft, discrepancies);
    body.lastFloors_ = &sharedLastFloors;
    body.run();
  }
}

Plan initialPlan(const Context& ctx) {
  Plan plan;
  const ir::Graph& g = *ctx.program;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    Tensor t;
    t.shape = g.value(g.inputs[i]).shape;
    t.labels = ctx.labels->ofValue[static_cast<size_t>(g.inputs[i])];
    t.kernel = -1;
    t.index = static_cast<int>(i);
    plan.tensors.push_back(t);
  }
  return plan;
}

}  // namespace

ExprId Context::scaleFree(ExprId e) {
  if (static_cast<size_t>(e) >= scaleFreeMemo.size()) scaleFreeMemo.resize(exprs.size() + 1024, -1);
  if (scaleFreeMemo[static_cast<size_t>(e)] >= 0) return scaleFreeMemo[static_cast<size_t>(e)];
  const Poly& p = exprs.poly(e);
  // (scale may intern new expressions; e's slot is there already)
  const ExprId free = p.terms.empty() ? e : exprs.scale(e, Rational(1) / p.terms[0].coeff);
  scaleFreeMemo[static_cast<size_t>(e)] = free;
  return free;
}

uint64_t Context::monomialOver(const Monomial& m, Label l) const {
  uint64_t h = 0x51ed2701u;
  const uint64_t carriers = inputsCarrying[static_cast<size_t>(l)];
  for (const Factor& f : m.factors) {  // sorted by atom: the same order for equal monomials
    const Atom& a = exprs.atom(f.atom);
    if (a.kind != AtomKind::Input || a.tag >= 63 || !(carriers & (uint64_t{1} << a.tag))) continue;
    h = mix(h ^ (static_cast<uint64_t>(a.tag) << 48) ^ (static_cast<uint64_t>(f.exponent.num) << 16) ^
            static_cast<uint64_t>(f.exponent.den));
  }
  return h;
}

bool Context::sumsProgramTerms(Label l, ExprId e, uint64_t summed) {
  if (l <= kUnit || static_cast<size_t>(l) >= labelSumTerms.size() || l >= 64) return true;
  const std::unordered_set<uint64_t>& terms = labelSumTerms[static_cast<size_t>(l)];
  if (terms.empty() || (summed & (uint64_t{1} | (uint64_t{1} << l)))) return true;
  const uint64_t key = static_cast<uint64_t>(e) * 64 + static_cast<uint64_t>(l);
  if (const bool* known = sumTermsMemo.find(key)) return *known;
  bool ok = true;
  for (const Monomial& m : exprs.poly(e).terms) ok = ok && terms.count(monomialOver(m, l)) > 0;
  sumTermsMemo.put(key, ok);
  return ok;
}

bool Context::preferred(ExprId e) {
  if (static_cast<size_t>(e) >= preferredMemo.size()) preferredMemo.resize(exprs.size() + 1024, -1);
  int8_t& m = preferredMemo[static_cast<size_t>(e)];
  if (m < 0) m = mayBePreferred(prints.of(exprs, e)) && preferredSet.count(scaleFree(e)) > 0 ? 1 : 0;
  return m == 1;
}

bool Context::mayBePreferred(const Print& p) {
  if (!p.known) return true;
  if (preferredPrints.size() != preferredSet.size()) {
    preferredPrints.clear();
    for (ExprId t : preferredSet) preferredPrints.push_back(prints.of(exprs, t));
  }
  return std::any_of(preferredPrints.begin(), preferredPrints.end(),
                     [&](const Print& t) { return ExprPrints::mayBeProportional(p, t); });
}

uint32_t Context::pairTermKinds(ExprId a, ExprId b) {
  if (a > b) std::swap(a, b);
  const uint64_t key = (static_cast<uint64_t>(a) << 32) | static_cast<uint64_t>(b);
  if (const uint32_t* known = pairTerms.find(key)) return *known;
  uint32_t kinds = 0;
  const Print pa = prints.of(exprs, a), pb = prints.of(exprs, b);
  for (size_t n = 0; n < binaryKinds.size() && n < 32; ++n) {
    const ir::OpKind k = binaryKinds[n];
    if (!ir::isElementwiseBinary(k)) continue;
    // The prints first (b - a is a - b negated, a·b commutes): most pairs
    // give no program term, and then no result need be built.
    bool may = true;
    switch (k) {
      case ir::OpKind::Add: may = mayBePreferred(ExprPrints::add(pa, pb)); break;
      case ir::OpKind::Sub: may = mayBePreferred(ExprPrints::sub(pa, pb)); break;
      case ir::OpKind::Mul: may = mayBePreferred(ExprPrints::mul(pa, pb)); break;
      case ir::OpKind::Div:
        may = mayBePreferred(ExprPrints::mul(pa, prints.inverseOf(exprs, b))) ||
              mayBePreferred(ExprPrints::mul(pb, prints.inverseOf(exprs, a)));
        break;
      case ir::OpKind::Maximum:  // makes atoms of its own: built below
      case ir::OpKind::Minimum:
        break;
      MIRAGE_CASES_NOT_BINARY break;  // not element-wise binary: skipped above
    }
    if (may && (preferred(exprs.binary(k, a, b)) || preferred(exprs.binary(k, b, a)))) kinds |= uint32_t{1} << n;
  }
  pairTerms.put(key, kinds);
  return kinds;
}

bool Context::ratioConsistent(ExprId e) {
  if (exprs.poly(e).terms.size() <= 1) return true;
  if (static_cast<size_t>(e) >= ratioMemo.size()) ratioMemo.resize(exprs.size() + 1024, -1);
  int8_t& m = ratioMemo[static_cast<size_t>(e)];
  if (m < 0) {
    m = 0;
    for (ExprId t : programValues)
      if (exprs.isRatioSubsum(e, t)) {
        m = 1;
        break;
      }
  }
  return m == 1;
}

bool Context::prune(ExprId e) {
  if (static_cast<size_t>(e) >= pruneMemo.size()) pruneMemo.resize(exprs.size() + 1024, -1);
  int8_t& m = pruneMemo[static_cast<size_t>(e)];
  if (m < 0) {
    m = 1;
    for (ExprId t : pruneTargets)
      if (exprs.isSubexpr(e, t)) m = 0;
  }
  return m == 1;
}

namespace {

// The unary operators whose result is one uninterpreted-function atom of
// their operand (ExprTable::unary): each such operator creates exactly one
// atom, and nothing else creates these (relu and abs are pairs of maximum
// atoms, which binary maximum also makes, so they are not counted).
bool singleAtomFunction(int tag) {
  const auto k = static_cast<ir::OpKind>(tag);
  return k == ir::OpKind::Sqrt || k == ir::OpKind::Silu || k == ir::OpKind::Gelu || k == ir::OpKind::Tanh ||
         k == ir::OpKind::Sigmoid || k == ir::OpKind::Log;
}

// A class that is one counted atom (times a constant, to any power) may be
// the value of the very operator that creates the atom (sqrt, or rsqrt's
// inverse): its index into neededAtoms, or -1.
int atomOfScaledPower(const Context& ctx, ExprId e) {
  const Poly& p = ctx.exprs.poly(e);
  if (p.terms.size() != 1 || p.terms[0].degree != 1 || p.terms[0].factors.size() != 1) return -1;
  auto it = std::find(ctx.neededAtoms.begin(), ctx.neededAtoms.end(), p.terms[0].factors[0].atom);
  return it == ctx.neededAtoms.end() ? -1 : static_cast<int>(it - ctx.neededAtoms.begin());
}

}  // namespace

// A mask of at most 63 bits per expression, memoized in `memo` (bit 63
// marks an entry made): `compute()` on first use. It may ask for other
// expressions' masks and grow the table, so the entry is indexed again.
template <typename Compute>
static uint64_t memoizedMask(const ExprTable& exprs, std::vector<uint64_t>& memo, ExprId e, const Compute& compute) {
  constexpr uint64_t kDone = uint64_t{1} << 63;
  if (static_cast<size_t>(e) >= memo.size()) memo.resize(exprs.size() + 1024, 0);
  if (memo[static_cast<size_t>(e)] & kDone) return memo[static_cast<size_t>(e)] & ~kDone;
  const uint64_t m = compute();
  memo[static_cast<size_t>(e)] = m | kDone;
  return m;
}

// `bits(atom id, atom)` of every atom of e, and of the atoms of their
// arguments, all of them ORed (memoizedMask).
template <typename Bits>
static uint64_t atomMask(const ExprTable& exprs, std::vector<uint64_t>& memo, ExprId e, const Bits& bits) {
  return memoizedMask(exprs, memo, e, [&] {
    uint64_t m = 0;
    for (const Monomial& term : exprs.poly(e).terms)
      for (const Factor& f : term.factors) {
        const Atom& a = exprs.atom(f.atom);
        m |= bits(f.atom, a);
        if (a.arg >= 0) m |= atomMask(exprs, memo, a.arg, bits);
      }
    return m;
  });
}

uint64_t Context::neededAtomsOf(ExprId e) {
  return atomMask(exprs, neededAtomsMemo, e, [&](AtomId id, const Atom&) -> uint64_t {
    auto it = std::find(neededAtoms.begin(), neededAtoms.end(), id);
    return it == neededAtoms.end() ? 0 : uint64_t{1} << (it - neededAtoms.begin());
  });
}

uint64_t Context::inputsOf(ExprId e) {
  return atomMask(exprs, inputsMemo, e, [](AtomId, const Atom& a) -> uint64_t {
    return a.kind == AtomKind::Input && a.tag < 63 ? uint64_t{1} << a.tag : 0;
  });
}

uint64_t Context::classesOf(ExprId e) {
  return memoizedMask(exprs, classMemo, e, [&] {
    uint64_t m = 0;
    for (size_t c = 0; c < classExprs.size() && c < 63; ++c)
      if (exprs.equalUpToScale(e, classExprs[c])) m |= uint64_t{1} << c;
    return m;
  });
}

// For each class label L, the sums and maxima the program makes over L,
// each as the program inputs its L-varying factors come from
// (docs/search.md, "Sums over the right index"). A value is followed
// per label as its terms: the inputs each additive term takes a factor
// varying with that label from (a sum adds the terms of its operands that
// have the label, a product crosses them, a divisor or a function of a
// value is one factor whatever its terms, a reduction over another label
// keeps them); a sum over L records each term of what it sums, a maximum
// one term of all. Empty where the program has an operator this does not
// follow (layout operators, custom kernels) or more than 63 inputs.
static std::vector<std::vector<uint64_t>> programSums(const ir::Graph& program, const ProgramLabels& labels) {
  if (program.inputs.size() > 63) return {};  // inputsOf keeps bit 63 as its mark
  using Terms = std::vector<uint64_t>;
  constexpr size_t kMostTerms = 32;  // past it, one empty term: nothing is asked
  auto tidy = [&](Terms t) {
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t.size() > kMostTerms ? Terms{0} : t;
  };
  auto cross = [&](const Terms& a, const Terms& b) {
    Terms out;
    for (uint64_t x : a)
      for (uint64_t y : b) out.push_back(x | y);
    return tidy(std::move(out));
  };
  auto whole = [](const Terms& t) {
    uint64_t m = 0;
    for (uint64_t x : t) m |= x;
    return Terms{m};
  };
  const size_t classes = labels.extent.size();
  // terms[v][L]: value v's terms for label L (empty where v has no L).
  std::vector<std::vector<Terms>> terms(program.values.size(), std::vector<Terms>(classes));
  std::vector<std::vector<uint64_t>> sums(classes);
  int inputIndex = 0;
  auto has = [&](ir::ValueId v, Label l) {
    const Labels& ls = labels.ofValue[static_cast<size_t>(v)];
    return std::find(ls.begin(), ls.end(), l) != ls.end();
  };
  enum class How { Add, Multiply, Divide, Whole, Same };
  for (const ir::Op& op : program.ops) {
    if (op.results.size() != 1) return {};
    const size_t out = static_cast<size_t>(op.results[0]);
    How how = How::Same;
    Label reduced = kUnit;
    switch (op.kind) {
      case ir::OpKind::Input:
        for (Label l : labels.ofValue[out])
          if (l != kUnit) terms[out][static_cast<size_t>(l)] = {uint64_t{1} << inputIndex};
        ++inputIndex;
        continue;
      case ir::OpKind::Const: continue;
      case ir::OpKind::Add:
      case ir::OpKind::Sub: how = How::Add; break;
      case ir::OpKind::Mul:
      case ir::OpKind::Square: how = How::Multiply; break;
      case ir::OpKind::Div: how = How::Divide; break;
      MIRAGE_CASES_ATOM_OF_OPERAND how = How::Whole; break;
      case ir::OpKind::Neg:
      case ir::OpKind::Transpose: how = How::Same; break;
      case ir::OpKind::Matmul:
        how = How::Multiply;
        reduced = programReducedLabel(op, labels);
        break;
      case ir::OpKind::ReduceSum:
      case ir::OpKind::ReduceMean:
      case ir::OpKind::ReduceMax:
        how = op.kind == ir::OpKind::ReduceMax ? How::Whole : How::Same;
        reduced = programReducedLabel(op, labels);
        break;
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND
        return {};
    }
    // What the operands' terms for label l give.
    auto combine = [&](Label l) {
      Terms t;
      bool first = true;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const ir::ValueId in = op.inputs[i];
        if (!has(in, l)) continue;  // constant in l
        Terms ti = terms[static_cast<size_t>(in)][static_cast<size_t>(l)];
        if (how == How::Divide && i == 1) ti = whole(ti);
        if (first) t = ti;
        else if (how == How::Add) t.insert(t.end(), ti.begin(), ti.end());
        else t = cross(t, ti);
        first = false;
      }
      if (op.kind == ir::OpKind::Square) t = cross(t, t);
      return how == How::Whole ? whole(t) : tidy(std::move(t));
    };
    if (reduced != kUnit) {
      Terms t = combine(reduced);
      sums[static_cast<size_t>(reduced)].insert(sums[static_cast<size_t>(reduced)].end(), t.begin(), t.end());
    }
    for (Label l : labels.ofValue[out])
      if (l != kUnit && l != reduced) terms[out][static_cast<size_t>(l)] = combine(l);
  }
  for (std::vector<uint64_t>& s : sums) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  return sums;
}

// Layout operators and custom kernels: the sum analyses (which forms the
// program multiplies across a sum in, what it sums over each label) do not
// follow values through them.
static bool opaqueToSumAnalysis(const ir::Op& op) { return ir::isLayoutOp(op.kind) || op.kind == ir::OpKind::Kernel; }

// The forms (Context::productsAcrossSums) in which the program itself
// multiplies a value summed over a label by a value that still has it
// (productAcrossSum, with sums followed as sumFlow says): the body search
// may use those. Layout operators, custom kernels and labels past 63 are
// not followed: kAnyProductAcrossSum.
static uint8_t programProductsAcrossSums(const ir::Graph& program, const ProgramLabels& labels) {
  std::vector<uint64_t> summed(program.values.size(), 0);
  uint8_t forms = 0;
  auto bits = [&](ir::ValueId v, uint64_t& out) {
    out = 0;
    for (Label l : labels.ofValue[static_cast<size_t>(v)]) {
      if (l >= 64) return false;
      if (l > kUnit) out |= uint64_t{1} << l;
    }
    return true;
  };
  for (const ir::Op& op : program.ops) {
    if (op.kind == ir::OpKind::Input || op.kind == ir::OpKind::Const) continue;
    if (op.results.size() != 1 || opaqueToSumAnalysis(op)) return Context::kAnyProductAcrossSum;
    uint64_t a = 0, b = 0, la = 0, lb = 0;
    if (!op.inputs.empty()) {
      a = summed[static_cast<size_t>(op.inputs[0])];
      if (!bits(op.inputs[0], la)) return Context::kAnyProductAcrossSum;
    }
    if (op.inputs.size() > 1) {
      b = summed[static_cast<size_t>(op.inputs[1])];
      if (!bits(op.inputs[1], lb)) return Context::kAnyProductAcrossSum;
    }
    if (op.kind == ir::OpKind::Square && (a & la)) forms |= Context::kSquareAcrossSum;
    if ((op.kind == ir::OpKind::Mul || op.kind == ir::OpKind::Div) && op.inputs.size() == 2 &&
        productAcrossSum(op.kind, a, la, b, lb))
      forms |= op.kind == ir::OpKind::Mul ? Context::kMulAcrossSum : Context::kDivAcrossSum;
    const SumFlow flow = sumFlow(op.kind);
    const Label l = flow == SumFlow::Reduce ? programReducedLabel(op, labels) : kUnit;
    if (l >= 64) return Context::kAnyProductAcrossSum;
    summed[static_cast<size_t>(op.results[0])] = summedAfter(flow, a, b, l > kUnit ? uint64_t{1} << l : 0);
  }
  return forms;
}

// Context::labelSumTerms: each term of what the program sums over each
// label (a reduction's operand, a contraction's product), as monomialOver
// reads it. Programs with layout operators or custom kernels record none.
static void collectSumTerms(Context& ctx, const ir::Graph& program, const ProgramLabels& labels,
                            const std::vector<ExprId>& e) {
  ctx.labelSumTerms.assign(labels.extent.size(), {});
  ctx.sumTermsMemo.clear();
  ctx.expWeightedSumLabels = 0;
  ctx.expSumsOver.assign(labels.extent.size(), 0);
  if (std::any_of(program.ops.begin(), program.ops.end(), opaqueToSumAnalysis)) return;
  uint64_t summedLabels = 0, plainTermLabels = 0;
  // Per label: the sums over it whose every term holds an exp that varies
  // with it, each as the sorted keys of its terms.
  std::vector<std::set<std::vector<uint64_t>>> expSumKeys(labels.extent.size());
  for (const ir::Op& op : program.ops) {
    if (op.kind != ir::OpKind::ReduceSum && op.kind != ir::OpKind::ReduceMean && op.kind != ir::OpKind::Matmul)
      continue;
    const Label l = programReducedLabel(op, labels);
    if (l <= kUnit || l >= 64) continue;
    const auto in = [&](size_t i) { return e[static_cast<size_t>(op.inputs[i])]; };
    const ExprId summed = op.kind == ir::OpKind::Matmul ? ctx.exprs.mul(in(0), in(1)) : in(0);
    summedLabels |= uint64_t{1} << l;
    // An exp whose argument has an input with l outside every atom (not
    // only inside a maximum or a function, which may not vary with l): a
    // term whose monomialOver is not that of a monomial without inputs (a
    // collision can only make the label look plain, which applies no rule).
    const uint64_t noInput = ctx.monomialOver(Monomial{}, l);
    const auto variesWithL = [&](ExprId arg) {
      const std::vector<Monomial>& terms = ctx.exprs.poly(arg).terms;
      return std::any_of(terms.begin(), terms.end(),
                         [&](const Monomial& am) { return ctx.monomialOver(am, l) != noInput; });
    };
    std::vector<uint64_t> keys;
    bool everyTermExp = true;
    for (const Monomial& m : ctx.exprs.poly(summed).terms) {
      const uint64_t key = ctx.monomialOver(m, l);
      ctx.labelSumTerms[static_cast<size_t>(l)].insert(key);
      keys.push_back(key);
      const bool expOverL = std::any_of(m.factors.begin(), m.factors.end(), [&](const Factor& f) {
        const Atom& a = ctx.exprs.atom(f.atom);
        return a.kind == AtomKind::Exp && variesWithL(a.arg);
      });
      if (!expOverL) plainTermLabels |= uint64_t{1} << l;
      everyTermExp = everyTermExp && expOverL;
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (everyTermExp && !keys.empty()) expSumKeys[static_cast<size_t>(l)].insert(std::move(keys));
  }
  ctx.expWeightedSumLabels = summedLabels & ~plainTermLabels;
  for (size_t l = 0; l < expSumKeys.size(); ++l)
    ctx.expSumsOver[l] = static_cast<int>(std::min<size_t>(2, expSumKeys[l].size()));
}

// Context::flowInputs: under the guard, the needed inputs the program reads
// only as the second operand of contractions over a label whose every sum
// holds exps that vary with it (expWeightedSumLabels), and not as outputs.
static void collectFlowInputs(Context& ctx, const ir::Graph& program, const ProgramLabels& labels) {
  ctx.flowInputs = 0;
  ctx.lastKernelFloors.clear();
  if (!ctx.guard) return;
  for (size_t i = 0; i < program.inputs.size() && i < 63; ++i) {
    const ir::ValueId v = program.inputs[i];
    if (!ctx.neededInput[i] || std::find(program.outputs.begin(), program.outputs.end(), v) != program.outputs.end())
      continue;
    bool read = false, flows = true;
    for (const ir::Op& op : program.ops) {
      if (std::find(op.inputs.begin(), op.inputs.end(), v) == op.inputs.end()) continue;
      read = true;
      const Label l = op.kind == ir::OpKind::Matmul ? programReducedLabel(op, labels) : kUnit;
      flows = flows && op.kind == ir::OpKind::Matmul && op.inputs.size() == 2 && op.inputs[0] != v && op.inputs[1] == v &&
              l > kUnit && l < 64 && (ctx.expWeightedSumLabels >> l & 1);
    }
    if (read && flows) ctx.flowInputs |= uint64_t{1} << i;
  }
}

namespace {

// The one label a sum of `degree` elements can run over, or kUnit: a
// label the program reduces over with exactly that extent, where no other
// label it reduces over has an extent (above 1) that divides the degree,
// so that no product of other sums, nor a sum over another label, makes
// a monomial of that degree.
Label onlySumLabel(const ProgramLabels& labels, int64_t degree) {
  Label found = kUnit;
  for (size_t l = 1; l < labels.reduced.size(); ++l) {
    if (!labels.reduced[l] || labels.extent[l] <= 1) continue;
    if (labels.extent[l] == degree && found == kUnit && l < 64) {
      found = static_cast<Label>(l);
      continue;
    }
    if (degree % labels.extent[l] == 0) return kUnit;
  }
  return found;
}

// Context::sumNeeds. The argument (docs/search.md, "Sums still to make")
// follows monomials back through the operators a body may use; it needs
// the refusal of products across sums without exceptions, no contraction
// (whose monomials are products of two operands') and no guard (whose
// composite moves push values of their own).
void collectSumNeeds(Context& ctx, const ProgramLabels& labels) {
  ctx.sumNeeds.clear();
  ctx.sumGroups.clear();
  ctx.sumsPresentMemo.clear();
  ctx.classAtoms.clear();
  for (int c = 0; c < ctx.targetClasses; ++c)
    ctx.classAtoms.push_back(ctx.neededAtomsOf(ctx.classExprs[static_cast<size_t>(c)]));
  if (ctx.guard || ctx.productsAcrossSums != 0 ||
      std::find(ctx.binaryKinds.begin(), ctx.binaryKinds.end(), ir::OpKind::Matmul) != ctx.binaryKinds.end())
    return;
  for (size_t c = static_cast<size_t>(ctx.targetClasses); c < ctx.classExprs.size() && c < 63; ++c)
    for (const Monomial& m : ctx.exprs.poly(ctx.classExprs[c]).terms) {
      if (m.degree <= 1) continue;
      const Label l = onlySumLabel(labels, m.degree);
      if (l == kUnit) continue;
      Context::SumNeed need{static_cast<int>(c), l, m.degree, ctx.monomialOver(m, l)};
      const bool known = std::any_of(ctx.sumNeeds.begin(), ctx.sumNeeds.end(), [&](const Context::SumNeed& n) {
        return n.cls == need.cls && n.label == need.label && n.degree == need.degree && n.key == need.key;
      });
      if (known || ctx.sumNeeds.size() >= 31) continue;
      auto g = std::find_if(ctx.sumGroups.begin(), ctx.sumGroups.end(),
                            [&](const Context::SumGroup& x) { return x.cls == need.cls && x.label == l; });
      if (g == ctx.sumGroups.end()) {
        Context::SumGroup group;
        group.cls = need.cls;
        group.label = l;
        for (size_t i = 0; i < 63; ++i)
          if (ctx.inputsCarrying[static_cast<size_t>(l)] & (uint64_t{1} << i)) group.inputs.push_back(static_cast<int>(i));
        group.whole = group.inputs.size() <= SumKey::kInputs;
        g = ctx.sumGroups.insert(ctx.sumGroups.end(), std::move(group));
      }
      need.group = static_cast<int>(g - ctx.sumGroups.begin());
      if (!Summands::keyOf(ctx.exprs, m, g->inputs, need.summand)) g->whole = false;
      need.keyed = g->whole && !need.summand.empty();
      g->needs |= uint32_t{1} << ctx.sumNeeds.size();
      ctx.sumNeeds.push_back(need);
    }
}

}  // namespace

uint64_t Context::sumsPresentOf(ExprId e) {
  return memoizedMask(exprs, sumsPresentMemo, e, [&] {
    uint64_t bits = 0;
    for (const Monomial& m : exprs.poly(e).terms)
      for (size_t i = 0; i < sumNeeds.size(); ++i) {
        const SumNeed& n = sumNeeds[i];
        if (m.degree != n.degree && m.degree != 1) continue;
        if (monomialOver(m, n.label) != n.key) continue;
        bits |= uint64_t{1} << (2 * i + (m.degree == 1 ? 1 : 0));
      }
    return bits;
  });
}

void initContext(Context& ctx, const ir::Graph& program, const ProgramLabels& labels,
                 const Limits& limits) {
  ctx.program = &program;
  ctx.labels = &labels;
  ctx.limits = &limits;
  std::vector<ExprId> e = programExprs(ctx.exprs, program);
  ctx.unreachableTarget = false;
  ctx.targets.clear();
  for (ir::ValueId o : program.outputs) ctx.targets.push_back(e[static_cast<size_t>(o)]);
  // One walk below the targets: the fix arguments (an exp(m)^c factor needs
  // its argument scaled to c·m first), whether a maximum is among them, and
  // what every completion must still build (Context::neededAtoms).
  std::set<ExprId> fix;
  bool targetsHaveMax = false;
  for (ExprId t : ctx.targets)
    for (ExprId a : ctx.exprs.atomArguments(t)) fix.insert(a);
  ctx.neededAtoms.clear();
  forEachFactorBelow(ctx.exprs, ctx.targets, [&](const Factor& f, const Atom& at) {
    if (at.arg < 0) return;
    if (at.kind == AtomKind::Exp && f.exponent != Rational(1)) fix.insert(ctx.exprs.scale(at.arg, f.exponent));
    if (at.kind == AtomKind::Func && at.tag == static_cast<int>(ir::OpKind::ReduceMax)) targetsHaveMax = true;
    if (at.kind == AtomKind::Func && at.tag == static_cast<int>(ir::OpKind::Kernel)) ctx.unreachableTarget = true;
    if (at.kind == AtomKind::Func && singleAtomFunction(at.tag) && ctx.neededAtoms.size() < 63 &&
        std::find(ctx.neededAtoms.begin(), ctx.neededAtoms.end(), f.atom) == ctx.neededAtoms.end())
      ctx.neededAtoms.push_back(f.atom);
  });
  ctx.fixArgs.assign(fix.begin(), fix.end());
  ctx.targetClass.assign(ctx.targets.size(), -1);
  ctx.targetClasses = 0;
  ctx.atomOfClass.clear();
  ctx.classExprs.clear();
  for (size_t t = 0; t < ctx.targets.size(); ++t) {
    for (size_t u = 0; u < t && ctx.targetClass[t] < 0; ++u)
      if (ctx.exprs.equalUpToScale(ctx.targets[t], ctx.targets[u])) ctx.targetClass[t] = ctx.targetClass[u];
    if (ctx.targetClass[t] >= 0) continue;
    ctx.targetClass[t] = ctx.targetClasses++;
    ctx.classExprs.push_back(ctx.targets[t]);
    ctx.atomOfClass.push_back(atomOfScaledPower(ctx, ctx.targets[t]));
  }
  ctx.classNeededWhile.assign(ctx.classExprs.size(), 0);
  // The argument of a needed atom: the one operator that creates the atom
  // applies to a value that is exactly its argument (ExprTable::func), so
  // while the atom is missing that value must exist or still be made. An
  // argument equal to a target (up to scale) is that target's class.
  for (size_t i = 0; i < ctx.neededAtoms.size(); ++i) {
    const ExprId arg = ctx.exprs.atom(ctx.neededAtoms[i]).arg;
    size_t c = 0;
    while (c < ctx.classExprs.size() && !ctx.exprs.equalUpToScale(arg, ctx.classExprs[c])) ++c;
    if (c == ctx.classExprs.size()) {
      if (c >= 63) continue;
      ctx.classExprs.push_back(arg);
      ctx.classNeededWhile.push_back(0);
      ctx.atomOfClass.push_back(atomOfScaledPower(ctx, arg));
    }
    if (static_cast<int>(c) >= ctx.targetClasses) ctx.classNeededWhile[c] |= uint64_t{1} << i;
  }
  ctx.neededAtomsMemo.clear();
  ctx.classMemo.clear();
  // Inputs some output depends on: every candidate reads them (the bound).
  ctx.neededInput.assign(program.inputs.size(), 0);
  for (size_t i = 0; i < program.inputs.size(); ++i)
    for (ExprId t : ctx.targets)
      if (ctx.exprs.isSubexpr(ctx.exprs.input(static_cast<int>(i)), t)) ctx.neededInput[i] = 1;
  ctx.guard = !limits.allowUnguardedExp && asksForGuard(program);
  ctx.pruneTargets = ctx.targets;
  if (!ctx.guard)
    for (const ir::Op& op : program.ops)
      if (op.kind == ir::OpKind::Exp && ctx.exprs.poly(e[static_cast<size_t>(op.inputs[0])]).terms.size() > 1)
        ctx.pruneTargets.push_back(e[static_cast<size_t>(op.inputs[0])]);
  ctx.programValues.clear();
  for (ExprId x : e)
    if (x >= 0) ctx.programValues.push_back(x);
  ctx.ratioMemo.clear();
  ctx.programExpPowers.clear();
  forEachFactorBelow(ctx.exprs, ctx.programValues, [&](const Factor& f, const Atom& at) {
    if (at.kind == AtomKind::Exp) ctx.programExpPowers.insert({f.atom, abs(f.exponent)});
  });
  ctx.maxLabels.clear();
  for (const ir::Op& op : program.ops)
    if (op.kind == ir::OpKind::ReduceMax) {
      Label l = labels.ofValue[static_cast<size_t>(op.inputs[0])][static_cast<size_t>(op.dim)];
      if (l != kUnit) ctx.maxLabels.insert(l);
    }
  ctx.expArgLabels.clear();
  ctx.expArgSources.clear();
  ctx.expArgResults.clear();
  ctx.expValues.clear();
  for (const ir::Op& op : program.ops)
    if (op.kind == ir::OpKind::Exp) {
      const Labels& argLabels = labels.ofValue[static_cast<size_t>(op.inputs[0])];
      ctx.expArgLabels.push_back(argLabels);
      ctx.expValues.push_back(e[static_cast<size_t>(op.results[0])]);
      // The matmuls below the argument, and per input an operand depends on
      // with the contracted label, a pairing.
      std::vector<Context::ExpArgSource> sources;
      std::vector<Context::ExpArgResult> results;
      auto resultIndex = [&](const std::vector<Label>& resultLabels, ExprId expr) {
        for (size_t r = 0; r < results.size(); ++r)
          if (results[r].labels == resultLabels && results[r].expr == expr) return static_cast<int>(r);
        results.push_back({resultLabels, expr});
        return static_cast<int>(results.size() - 1);
      };
      std::vector<ir::ValueId> stack{op.inputs[0]};
      std::set<ir::ValueId> seen;
      while (!stack.empty()) {
        const ir::ValueId v = stack.back();
        stack.pop_back();
        if (!seen.insert(v).second) continue;
        const ir::Op& producer = program.producer(v);
        for (ir::ValueId in : producer.inputs) stack.push_back(in);
        if (producer.kind != ir::OpKind::Matmul) continue;
        const Label d = programReducedLabel(producer, labels);
        if (d == kUnit) continue;
        for (ir::ValueId operand : producer.inputs) {
          const Labels& have = labels.ofValue[static_cast<size_t>(operand)];
          if (std::find(have.begin(), have.end(), d) == have.end()) continue;
          for (size_t i = 0; i < program.inputs.size(); ++i) {
            if (!ctx.exprs.isSubexpr(ctx.exprs.input(static_cast<int>(i)), e[static_cast<size_t>(operand)])) continue;
            Context::ExpArgSource source;
            source.input = static_cast<int>(i);
            source.contracted = d;
            source.paired = labels.ofValue[static_cast<size_t>(producer.results[0])];
            source.pairingResult = resultIndex(source.paired, e[static_cast<size_t>(producer.results[0])]);
            const Labels& inputLabels = labels.ofValue[static_cast<size_t>(program.inputs[i])];
            std::vector<Label> operandLabels;
            for (Label l : have)
              if (l != kUnit && std::find(inputLabels.begin(), inputLabels.end(), l) != inputLabels.end())
                operandLabels.push_back(l);
            source.operandResult = resultIndex(operandLabels, e[static_cast<size_t>(operand)]);
            sources.push_back(std::move(source));
          }
        }
      }
      ctx.expArgSources.push_back(std::move(sources));
      ctx.expArgResults.push_back(std::move(results));
    }
  // The program's own terms: values equal to one of them (up to a constant)
  // extend a body without a discrepancy.
  for (ExprId x : e)
    if (x >= 0 && !ctx.exprs.isConstant(x)) ctx.preferredSet.insert(ctx.scaleFree(x));
  for (ExprId x : ctx.fixArgs) ctx.preferredSet.insert(ctx.scaleFree(x));
  for (const ir::Op& op : program.ops)
    if (op.kind != ir::OpKind::Input && op.kind != ir::OpKind::Const && op.kind != ir::OpKind::Kernel)
      ctx.kinds.insert(op.kind == ir::OpKind::ReduceMean ? ir::OpKind::ReduceSum : op.kind);
  // A transpose is not a free move: where the program has one, only tiles
  // are transposed, in their last two dims (see transposeTiles).
  ctx.transposeTiles = ctx.kinds.erase(ir::OpKind::Transpose) > 0;
  for (const ir::Op& op : program.ops) {
    if (!ir::isElementwiseBinary(op.kind) || !ir::isCommutative(op.kind) || op.kind == ir::OpKind::Add ||
        op.kind == ir::OpKind::Mul)
      continue;
    for (ir::ValueId in : op.inputs)
      if (program.producer(in).kind == ir::OpKind::Const) {
        Rational c = Rational::fromDouble(program.producer(in).scalar);
        addNumberOp(ctx.scalarOps, op.kind, c);
      }
  }
  for (const ir::Op& op : program.ops) {
    if (op.kind != ir::OpKind::Mul && op.kind != ir::OpKind::Div && op.kind != ir::OpKind::Add &&
        op.kind != ir::OpKind::Sub)
      continue;
    for (size_t s = 0; s < op.inputs.size(); ++s) {
      const ir::Op& p = program.producer(op.inputs[s]);
      if (p.kind != ir::OpKind::Const || program.producer(op.inputs[1 - s]).kind == ir::OpKind::Const) continue;
      Rational c = Rational::fromDouble(p.scalar);
      bool numberFirst = s == 0;
      // c - x and c / x are no scale or shift of x: moves of their own.
      if (numberFirst && (op.kind == ir::OpKind::Sub || op.kind == ir::OpKind::Div)) {
        if (op.kind == ir::OpKind::Div && c.isZero()) continue;
        addNumberOp(ctx.numberFirstOps, op.kind, c);
        continue;
      }
      if (op.kind == ir::OpKind::Div && c.isZero()) continue;
      if (op.kind == ir::OpKind::Div) c = Rational(1) / c;
      if (op.kind == ir::OpKind::Sub) c = -c;
      ir::OpKind k = op.kind == ir::OpKind::Mul || op.kind == ir::OpKind::Div ? ir::OpKind::Mul : ir::OpKind::Add;
      if (k == ir::OpKind::Mul && c == Rational(1)) continue;
      if (k == ir::OpKind::Add && c.isZero()) continue;
      addNumberOp(ctx.numberOps, k, c);
    }
  }
  // reduce_mean is reduce_sum and this scale: a body needs it where the
  // mean itself is used (layer_norm's X - mean(X)), not only inside a
  // function's argument, where a fix would supply it.
  for (const ir::Op& op : program.ops)
    if (op.kind == ir::OpKind::ReduceMean) {
      int64_t n = program.value(op.inputs[0]).shape[static_cast<size_t>(op.dim)];
      if (n > 1) addNumberOp(ctx.numberOps, ir::OpKind::Mul, Rational(1, n));
    }
  for (ExprId x : e)
    if (x >= 0 && !ctx.exprs.isConstant(x)) {
      if (static_cast<size_t>(x) >= ctx.programValue.size()) ctx.programValue.resize(static_cast<size_t>(x) + 1, 0);
      ctx.programValue[static_cast<size_t>(x)] = 1;
    }
  // A maximum that only stabilizes a softmax cancels (the max-shift axiom):
  // no body needs it.
  if (!targetsHaveMax) ctx.kinds.erase(ir::OpKind::ReduceMax);
  ctx.unaryKinds.clear();
  ctx.binaryKinds.clear();
  for (ir::OpKind k : ctx.kinds) {
    if (isUnaryKind(k)) ctx.unaryKinds.push_back(k);
    if (ir::isElementwiseBinary(k) || k == ir::OpKind::Matmul) ctx.binaryKinds.push_back(k);
  }
  ctx.hasSquare = ctx.kinds.count(ir::OpKind::Square) > 0;
  ctx.hasReduceMax = ctx.kinds.count(ir::OpKind::ReduceMax) > 0;
  ctx.labelSums = programSums(program, labels);
  ctx.productsAcrossSums = programProductsAcrossSums(program, labels);
  ctx.loopNeedsInputs.assign(ctx.labelSums.size(), 0);
  for (size_t l = 0; l < ctx.labelSums.size(); ++l) {
    uint64_t all = ctx.labelSums[l].empty() ? 0 : ~uint64_t{0};
    for (uint64_t t : ctx.labelSums[l]) all &= t;
    ctx.loopNeedsInputs[l] = all;
  }
  ctx.inputsCarrying.assign(labels.extent.size(), 0);
  for (size_t i = 0; i < program.inputs.size() && i < 63; ++i)
    for (Label l : labels.ofValue[static_cast<size_t>(program.inputs[i])])
      if (l != kUnit) ctx.inputsCarrying[static_cast<size_t>(l)] |= uint64_t{1} << i;
  collectSumTerms(ctx, program, labels, e);
  collectFlowInputs(ctx, program, labels);
  ctx.operandFlows = findOperandFlows(program);
  ctx.inputsMemo.clear();
  collectSumNeeds(ctx, labels);
}

int countFirstConfigs(Context& ctx, int kernels) {
  Plan plan = initialPlan(ctx);
  return static_cast<int>(enumerateConfigs(ctx, plan, kernels == 1).size());
}

std::vector<std::vector<GridAxis>> firstConfigGrids(Context& ctx, int kernels) {
  Plan plan = initialPlan(ctx);
  std::vector<std::vector<GridAxis>> grids;
  for (const Config& c : enumerateConfigs(ctx, plan, kernels == 1)) grids.push_back(c.grid);
  return grids;
}

std::vector<Label> firstConfigLoops(Context& ctx, int kernels) {
  Plan plan = initialPlan(ctx);
  std::vector<Label> loops;
  for (const Config& c : enumerateConfigs(ctx, plan, kernels == 1)) loops.push_back(c.loop);
  return loops;
}

void searchPlans(Context& ctx, int kernels, int discrepancies, int firstConfig) {
  Plan plan = initialPlan(ctx);
  for (size_t i = 0; i < plan.tensors.size(); ++i) plan.tensors[i].expr = ctx.exprs.input(static_cast<int>(i));
  BodySearch::searchKernels(ctx, plan, kernels, discrepancies, firstConfig);
}

}  // namespace mirage::search
