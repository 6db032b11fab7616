// Regions (search/regions.h): where to cut a program, the canonical
// sub-programs, stitching, and the parallel search with moving cuts.
#include "mirage/search/regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include "mirage/ir/check.h"
#include "mirage/ir/equal.h"
#include "mirage/ir/printer.h"

namespace mirage::search {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool isLeaf(const ir::Op& op) { return op.kind == ir::OpKind::Input || op.kind == ir::OpKind::Const; }

int64_t bytesOf(const ir::Graph& g, ir::ValueId v) {
  return ir::numElements(g.value(v).shape) * ir::dtypeBytes(ir::storageDType(g, v));
}

// Where each value is produced and last used, in operator positions.
struct Positions {
  std::vector<int> ops;       // operator position -> index into g.ops
  std::vector<int> producer;  // value -> operator position, -1 for inputs and constants
  std::vector<int> lastUse;   // value -> last operator position using it; ops.size() for outputs; -1 unused
};

Positions positionsOf(const ir::Graph& g) {
  Positions p;
  p.ops = operatorOps(g);
  p.producer.assign(g.values.size(), -1);
  p.lastUse.assign(g.values.size(), -1);
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const ir::Op& op = g.ops[static_cast<size_t>(p.ops[k])];
    for (ir::ValueId r : op.results) p.producer[static_cast<size_t>(r)] = static_cast<int>(k);
    for (ir::ValueId in : op.inputs) p.lastUse[static_cast<size_t>(in)] = static_cast<int>(k);
  }
  for (ir::ValueId o : g.outputs) p.lastUse[static_cast<size_t>(o)] = static_cast<int>(p.ops.size());
  return p;
}

// The values that cross boundary b: produced by an operator before b, used at
// or after it.
std::vector<ir::ValueId> crossing(const Positions& p, int b) {
  std::vector<ir::ValueId> out;
  for (size_t v = 0; v < p.producer.size(); ++v)
    if (p.producer[v] >= 0 && p.producer[v] < b && p.lastUse[v] >= b) out.push_back(static_cast<ir::ValueId>(v));
  return out;
}

// The "split dim" of each value, counted from the last dim (0 = last), or -1:
// a value whose rows a matmul produced column-block by column-block (its n
// dim), carried through element-wise operators (whose other operands are
// program inputs or constants, available to any block) and reductions over
// other dims. Such a value can be written by blocks that each hold a chunk of
// that dim; a value that needed a whole row (a reduction over the split dim,
// or anything combined with one) cannot.
std::vector<int> splitDims(const ir::Graph& g, const Positions& p) {
  std::vector<int> split(g.values.size(), -1);
  for (int idx : p.ops) {
    const ir::Op& op = g.ops[static_cast<size_t>(idx)];
    if (op.results.size() != 1) continue;
    ir::ValueId r = op.results[0];
    int rank = static_cast<int>(g.value(r).shape.size());
    auto of = [&](size_t i) { return split[static_cast<size_t>(op.inputs[i])]; };
    int s = -1;
    if (op.kind == ir::OpKind::Matmul) {
      s = 0;
    } else if (ir::isElementwiseUnary(op.kind)) {
      s = of(0);
    } else if (ir::isElementwiseBinary(op.kind)) {
      bool ok = true;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        if (of(i) >= 0) {
          if (s >= 0 && s != of(i)) ok = false;
          s = of(i);
        } else if (p.producer[static_cast<size_t>(op.inputs[i])] >= 0) {
          ok = false;  // combined with a value that needed whole rows
        }
      }
      if (!ok) s = -1;
    } else if (ir::isReduction(op.kind)) {
      s = of(0) >= 0 && rank - 1 - op.dim != of(0) ? of(0) : -1;
    } else if (op.kind == ir::OpKind::Transpose) {
      int a = rank - 1 - op.dim, b = rank - 1 - op.dim1;
      s = of(0) == a ? b : of(0) == b ? a : of(0);
    }
    split[static_cast<size_t>(r)] = s;
  }
  return split;
}

// The first operator at or after `from` that needs whole rows of v along its
// split dim (a reduction over it, or a matmul contracting it), following v
// through the operators that keep the dim; -1 when none does. *rows: the
// rows that operator sees, i.e. the most blocks a kernel fusing across could
// give whole rows.
int firstRowConsumer(const ir::Graph& g, const Positions& p, ir::ValueId v, int splitDim, int64_t* rows) {
  std::vector<std::vector<std::pair<int, int>>> consumers(g.values.size());  // value -> (position, operand)
  for (size_t k = 0; k < p.ops.size(); ++k) {
    const ir::Op& op = g.ops[static_cast<size_t>(p.ops[k])];
    for (size_t i = 0; i < op.inputs.size(); ++i)
      consumers[static_cast<size_t>(op.inputs[i])].push_back({static_cast<int>(k), static_cast<int>(i)});
  }
  int best = -1;
  std::deque<std::pair<ir::ValueId, int>> todo{{v, splitDim}};
  std::vector<bool> seen(g.values.size(), false);
  while (!todo.empty()) {
    auto [u, s] = todo.front();
    todo.pop_front();
    if (seen[static_cast<size_t>(u)]) continue;
    seen[static_cast<size_t>(u)] = true;
    const ir::Shape& shape = g.value(u).shape;
    int rank = static_cast<int>(shape.size());
    for (auto [pos, operand] : consumers[static_cast<size_t>(u)]) {
      const ir::Op& op = g.ops[static_cast<size_t>(p.ops[static_cast<size_t>(pos)])];
      if (op.results.size() != 1) continue;
      ir::ValueId r = op.results[0];
      int rrank = static_cast<int>(g.value(r).shape.size());
      bool needsRow = false;
      int next = s;
      if (ir::isReduction(op.kind)) {
        needsRow = rank - 1 - op.dim == s;
      } else if (op.kind == ir::OpKind::Matmul) {
        // A's k is its last dim, B's its second last; A's m and B's n stay.
        needsRow = (operand == 0 && s == 0) || (operand == 1 && s == 1);
        if (operand == 1 && s == 0) next = 0;
      } else if (op.kind == ir::OpKind::Transpose) {
        int a = rrank - 1 - op.dim, b = rrank - 1 - op.dim1;
        next = s == a ? b : s == b ? a : s;
      } else if (!ir::isElementwiseUnary(op.kind) && !ir::isElementwiseBinary(op.kind)) {
        continue;
      }
      if (needsRow) {
        if (best < 0 || pos < best) {
          best = pos;
          *rows = ir::numElements(shape) / std::max<int64_t>(1, shape[static_cast<size_t>(rank - 1 - s)]);
        }
      } else {
        todo.push_back({r, next});
      }
    }
  }
  return best;
}

}  // namespace

std::vector<int> operatorOps(const ir::Graph& program) {
  std::vector<int> out;
  for (size_t i = 0; i < program.ops.size(); ++i)
    if (!isLeaf(program.ops[i])) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<Boundary> analyzeBoundaries(const ir::Graph& program, const RegionRule& rule) {
  Positions p = positionsOf(program);
  std::vector<int> split = splitDims(program, p);
  std::vector<Boundary> out;
  int n = static_cast<int>(p.ops.size());
  for (int b = 1; b < n; ++b) {
    Boundary bd;
    bd.position = b;
    std::vector<ir::ValueId> cross = crossing(p, b);
    bd.eligible = !cross.empty();
    for (ir::ValueId v : cross) {
      bd.bytes += bytesOf(program, v);
      if (split[static_cast<size_t>(v)] < 0) bd.eligible = false;
    }
    bd.costUs = rule.launchUs + 2.0 * static_cast<double>(bd.bytes) / (rule.bandwidthGBs * 1e3);
    if (bd.eligible) {
      // Fusing across b puts the row consumer into the producer's kernel,
      // which then runs on at most `rows` blocks; with fewer than an eighth
      // of the SMs busy, the producer's memory traffic (the weights) is
      // slower than the launch and the round trip a cut costs.
      for (ir::ValueId v : cross) {
        int64_t rows = 0;
        int c = firstRowConsumer(program, p, v, split[static_cast<size_t>(v)], &rows);
        if (c >= b && rows * 8 < rule.numSMs && (bd.culprit < 0 || c < bd.culprit)) {
          bd.barrier = true;
          bd.culprit = c;
        }
      }
    }
    out.push_back(bd);
  }
  return out;
}

Cuts chooseCuts(const ir::Graph& program, const RegionRule& rule) {
  std::vector<Boundary> bs = analyzeBoundaries(program, rule);
  int n = static_cast<int>(bs.size()) + 1;
  auto at = [&](int b) -> const Boundary& { return bs[static_cast<size_t>(b - 1)]; };
  // One cut per run of barriers with one culprit: the cheapest, the later on
  // a tie (the element-wise tail then stays with its producer).
  Cuts cuts;
  for (int b = 1; b < n;) {
    if (!at(b).barrier) {
      ++b;
      continue;
    }
    int bestB = b, e = b;
    for (; e < n && at(e).barrier && at(e).culprit == at(b).culprit; ++e)
      if (at(e).bytes <= at(bestB).bytes) bestB = e;
    cuts.push_back(bestB);
    b = e;
  }
  // Stretches longer than maxOps: the cheapest eligible cuts that bring every
  // region within the bound, any boundary (dearer) when no eligible one does.
  std::vector<int> edges = {0};
  edges.insert(edges.end(), cuts.begin(), cuts.end());
  edges.push_back(n);
  Cuts extra;
  const int maxOps = std::max(1, rule.maxOps);
  for (size_t k = 0; k + 1 < edges.size(); ++k) {
    int s = edges[k], e = edges[k + 1];
    if (e - s <= maxOps) continue;
    for (bool anyBoundary : {false, true}) {
      const double inf = std::numeric_limits<double>::infinity();
      std::vector<double> best(static_cast<size_t>(e - s + 1), inf);
      std::vector<int> from(static_cast<size_t>(e - s + 1), -1);
      best[0] = 0;
      for (int q = s + 1; q <= e; ++q) {
        for (int r = std::max(s, q - maxOps); r < q; ++r) {
          if (best[static_cast<size_t>(r - s)] == inf) continue;
          double c = 0;
          if (r > s) {
            if (!at(r).eligible && !anyBoundary) continue;
            c = at(r).costUs + (at(r).eligible ? 0 : 1e3);
          }
          double total = best[static_cast<size_t>(r - s)] + c;
          if (total < best[static_cast<size_t>(q - s)]) {
            best[static_cast<size_t>(q - s)] = total;
            from[static_cast<size_t>(q - s)] = r;
          }
        }
      }
      if (best[static_cast<size_t>(e - s)] == inf) continue;
      for (int q = from[static_cast<size_t>(e - s)]; q > s; q = from[static_cast<size_t>(q - s)]) extra.push_back(q);
      break;
    }
  }
  cuts.insert(cuts.end(), extra.begin(), extra.end());
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

std::vector<Region> splitRegions(const ir::Graph& program, const Cuts& cuts, std::string* error) {
  Positions p = positionsOf(program);
  int n = static_cast<int>(p.ops.size());
  for (int idx : p.ops)
    if (program.ops[static_cast<size_t>(idx)].kind == ir::OpKind::Kernel) {
      *error = "the program already holds a custom kernel";
      return {};
    }
  std::vector<int> edges = {0};
  for (int c : cuts) {
    if (c <= edges.back() || c >= n) {
      *error = fmt::format("cut {} out of order or out of range (1..{})", c, n - 1);
      return {};
    }
    edges.push_back(c);
  }
  edges.push_back(n);
  std::vector<Region> regions;
  for (size_t k = 0; k + 1 < edges.size(); ++k) {
    Region R;
    R.begin = edges[k];
    R.end = edges[k + 1];
    ir::Graph& g = R.program;
    g.name = "region";
    g.dtype = program.dtype;
    std::vector<ir::ValueId> local(program.values.size(), ir::kNoValue);
    // Outputs first (their names are given when their operator is added).
    std::map<ir::ValueId, int> outputIndex;
    for (size_t v = 0; v < program.values.size(); ++v)
      if (p.producer[v] >= R.begin && p.producer[v] < R.end && p.lastUse[v] >= R.end) {
        outputIndex[static_cast<ir::ValueId>(v)] = static_cast<int>(R.outputs.size());
        R.outputs.push_back(static_cast<ir::ValueId>(v));
      }
    for (int pos = R.begin; pos < R.end; ++pos) {
      const ir::Op& op = program.ops[static_cast<size_t>(p.ops[static_cast<size_t>(pos)])];
      ir::Op c = op;
      for (ir::ValueId& in : c.inputs) {
        ir::ValueId& l = local[static_cast<size_t>(in)];
        if (l == ir::kNoValue) {
          const ir::Op& prod = program.producer(in);
          if (prod.kind == ir::OpKind::Const) {
            l = ir::addConst(g, prod.scalarText);
          } else {
            if (ir::Error e = ir::addInput(g, fmt::format("i{}", R.inputs.size()), program.value(in).shape, &l);
                !e.empty()) {
              *error = e;
              return {};
            }
            R.inputs.push_back(in);
          }
        }
        in = l;
      }
      ir::ValueId r = ir::kNoValue;
      auto o = outputIndex.find(op.results[0]);
      std::string name = o == outputIndex.end() ? "" : fmt::format("o{}", o->second);
      if (ir::Error e = ir::addOp(g, c, nullptr, &r, name); !e.empty()) {
        *error = e;
        return {};
      }
      local[static_cast<size_t>(op.results[0])] = r;
    }
    for (ir::ValueId o : R.outputs) {
      g.outputs.push_back(local[static_cast<size_t>(o)]);
      if (ir::Error e = ir::checkOutput(g, g.outputs.back()); !e.empty()) {
        *error = e;
        return {};
      }
    }
    regions.push_back(std::move(R));
  }
  return regions;
}

ir::Graph stitchRegions(const ir::Graph& program, const std::vector<Region>& regions,
                        const std::vector<const ir::Graph*>& bests, std::string* error) {
  ir::Graph s;
  s.name = program.name;
  s.dtype = program.dtype;
  std::vector<ir::ValueId> map(program.values.size(), ir::kNoValue);
  for (ir::ValueId in : program.inputs) {
    if (ir::Error e = ir::addInput(s, program.value(in).name, program.value(in).shape, &map[static_cast<size_t>(in)]);
        !e.empty()) {
      *error = e;
      return {};
    }
  }
  if (bests.size() != regions.size()) {
    *error = "one μGraph per region is needed";
    return {};
  }
  for (size_t k = 0; k < regions.size(); ++k) {
    const Region& R = regions[k];
    const ir::Graph& b = *bests[k];
    if (b.inputs.size() != R.inputs.size() || b.outputs.size() != R.outputs.size()) {
      *error = fmt::format("region {}'s μGraph has {} inputs and {} outputs, the region {} and {}", k, b.inputs.size(),
                           b.outputs.size(), R.inputs.size(), R.outputs.size());
      return {};
    }
    std::vector<ir::ValueId> local(b.values.size(), ir::kNoValue);
    for (size_t i = 0; i < b.inputs.size(); ++i) {
      // A μGraph keeps its program's input names in order: one that does not
      // would be wired to the wrong tensors.
      if (b.value(b.inputs[i]).name != R.program.value(R.program.inputs[i]).name) {
        *error = fmt::format("region {}'s μGraph names its input {} '{}', the region '{}'", k, i,
                             b.value(b.inputs[i]).name, R.program.value(R.program.inputs[i]).name);
        return {};
      }
      ir::ValueId whole = map[static_cast<size_t>(R.inputs[i])];
      if (whole == ir::kNoValue || s.value(whole).shape != b.value(b.inputs[i]).shape) {
        *error = fmt::format("region {}'s input {} is not available with its shape", k, i);
        return {};
      }
      local[static_cast<size_t>(b.inputs[i])] = whole;
    }
    std::map<ir::ValueId, std::string> outName;  // b's outputs keep the program's names
    for (size_t i = 0; i < b.outputs.size(); ++i) outName[b.outputs[i]] = program.value(R.outputs[i]).name;
    for (const ir::Op& op : b.ops) {
      if (op.kind == ir::OpKind::Input) continue;
      if (op.kind == ir::OpKind::Const) {
        local[static_cast<size_t>(op.results[0])] = ir::addConst(s, op.scalarText);
        continue;
      }
      ir::Op c = op;
      for (ir::ValueId& in : c.inputs) in = local[static_cast<size_t>(in)];
      std::vector<ir::Shape> shapes;
      std::vector<std::string> names;
      for (ir::ValueId r : op.results) {
        shapes.push_back(b.value(r).shape);
        auto it = outName.find(r);
        names.push_back(it == outName.end() ? "" : it->second);
      }
      int idx = s.appendOp(std::move(c), shapes, names);
      for (size_t i = 0; i < op.results.size(); ++i) {
        ir::ValueId nv = s.ops[static_cast<size_t>(idx)].results[i];
        s.values[static_cast<size_t>(nv)].keepF32 = b.value(op.results[i]).keepF32;
        local[static_cast<size_t>(op.results[i])] = nv;
      }
    }
    for (size_t i = 0; i < b.outputs.size(); ++i) map[static_cast<size_t>(R.outputs[i])] = local[static_cast<size_t>(b.outputs[i])];
  }
  for (ir::ValueId o : program.outputs) {
    ir::ValueId v = map[static_cast<size_t>(o)];
    if (v == ir::kNoValue) {
      *error = fmt::format("output {} is written by no region", program.value(o).name);
      return {};
    }
    s.outputs.push_back(v);
  }
  if (ir::Error e = ir::checkProgram(s); !e.empty()) {
    *error = "the stitched program is not legal: " + e;
    return {};
  }
  return s;
}

bool nestsExp(const ir::Graph& program) {
  std::vector<bool> afterExp(program.values.size(), false);
  for (const ir::Op& op : program.ops) {
    bool in = false;
    for (ir::ValueId v : op.inputs) in = in || afterExp[static_cast<size_t>(v)];
    if (op.kind == ir::OpKind::Exp && in) return true;
    for (ir::ValueId r : op.results) afterExp[static_cast<size_t>(r)] = in || op.kind == ir::OpKind::Exp;
  }
  return false;
}

verify::Verdict verifyStitched(const ir::Graph& program, const verify::Verifier& verifier, const Cuts& cuts,
                               const std::vector<ir::Graph>& bests, const ir::Graph& stitched,
                               const verify::Options& regionOptions, const verify::Cancel& cancel, bool* byRegions) {
  *byRegions = false;
  verify::Verdict v = verifier.check(stitched, cancel);
  bool undecided = !v.equivalent && v.notProven && !v.undefined && !v.cancelled && !v.signatureMismatch &&
                   v.output.empty();
  // An exp of a value computed from another exp has no exact residue in the
  // verifier's second field, so it is evaluated as a random function of its
  // argument's value (docs/verifier.md): two softmaxes that are equal only
  // through exp(a - m)·exp(m - M) = exp(a - M) (an online softmax against
  // the input's) then differ there, and the whole check refutes a correct
  // program (seen on two chained decoder layers, whose outputs agree on real
  // inputs to f16 rounding). Such a refutation decides nothing.
  if (!v.equivalent && !v.cancelled && !v.signatureMismatch && !v.undefined && nestsExp(program)) {
    undecided = true;
    v.message = fmt::format("{}{}{} (not decisive: the program nests exps)", v.message,
                            v.output.empty() ? "" : "; differs at ", v.output);
  }
  if (v.equivalent || !undecided) return v;
  auto refuse = [&](const std::string& why) {
    v.message += "; not proven region by region either: " + why;
    return v;
  };
  std::string error, why;
  std::vector<Region> regions = splitRegions(program, cuts, &error);
  if (regions.empty() || regions.size() != bests.size()) return refuse(error.empty() ? "one μGraph per region" : error);
  std::vector<const ir::Graph*> own, theirs;
  for (size_t k = 0; k < regions.size(); ++k) {
    own.push_back(&regions[k].program);
    theirs.push_back(&bests[k]);
  }
  ir::Graph rebuilt = stitchRegions(program, regions, own, &error);
  if (rebuilt.ops.empty() || !ir::sameGraph(rebuilt, program, &why))
    return refuse("the regions do not reproduce the input: " + (error.empty() ? why : error));
  ir::Graph composed = stitchRegions(program, regions, theirs, &error);
  if (composed.ops.empty() || !ir::sameGraph(composed, stitched, &why))
    return refuse("the program is not its regions' μGraphs stitched: " + (error.empty() ? why : error));
  double bound = 0;
  std::map<std::pair<std::string, std::string>, bool> proven;
  for (size_t k = 0; k < regions.size(); ++k) {
    auto key = std::make_pair(ir::printGraph(regions[k].program), ir::printGraph(bests[k]));
    if (proven.count(key)) continue;
    verify::Verdict r = verify::Verifier(regions[k].program, regionOptions).check(bests[k], cancel);
    if (!r.equivalent) {
      v.cancelled = r.cancelled;
      v.output = r.output;
      v.index = r.index;
      return refuse(fmt::format("region {} (operators {}..{}): {}", k, regions[k].begin, regions[k].end - 1,
                                r.message.empty() ? "not equivalent" : r.message));
    }
    bound += r.errorBound;
    proven[key] = true;
  }
  *byRegions = true;
  v.equivalent = true;
  v.notProven = false;
  v.errorBound = std::min(1.0, bound);
  v.message = fmt::format("proven region by region ({} regions); as a whole: {}", regions.size(), v.message);
  return v;
}

namespace {

// One region text's search outcome, shared by every region with that text.
struct Searched {
  ir::Graph best;
  double costUs = 0;
  int kernels = 0;
  double seconds = 0;
  std::string origin;
};

void addStats(Stats& to, const Stats& s) {
  to.states += s.states;
  to.pruned += s.pruned;
  to.duplicates += s.duplicates;
  to.deferred += s.deferred;
  to.templates += s.templates;
  to.instantiated += s.instantiated;
  to.noExtents += s.noExtents;
  to.dominated += s.dominated;
  to.unverified += s.unverified;
  to.prechecked += s.prechecked;
  to.precheckFailed += s.precheckFailed;
  to.checkFailed += s.checkFailed;
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
  // The least conclusive way any region's search ended.
  auto rank = [](const std::string& e) {
    return e == "exhausted" ? 0 : e == "bound" ? 1 : e == "cancelled" ? 2 : e == "time_limit" ? 3 : -1;
  };
  if (rank(s.endedBy) > rank(to.endedBy)) to.endedBy = s.endedBy;
  if (to.firstRejection.empty()) to.firstRejection = s.firstRejection;
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
  // side), stitches. False (error set) when the split or the stitch fails.
  bool evaluate(const Cuts& cuts, ir::Graph* stitched, double* cost, std::vector<RegionTiming>* timings,
                std::vector<ir::Graph>* bestsOut, std::string* error) {
    std::vector<Region> regions = splitRegions(program_, cuts, error);
    if (regions.empty()) return false;
    std::vector<std::string> texts;
    for (const Region& r : regions) texts.push_back(ir::printGraph(r.program));
    searchAll({cuts});
    std::vector<const ir::Graph*> bests;
    timings->clear();
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
      timings->push_back(t);
    }
    bestsOut->clear();
    for (const ir::Graph* b : bests) bestsOut->push_back(*b);
    *stitched = stitchRegions(program_, regions, bests, error);
    if (stitched->ops.empty()) return false;
    *cost = opt_.cost(*stitched);
    return true;
  }

  Stats stats() const { return stats_; }

  // Searches, side by side, every region text of these partitions that has
  // not been searched yet.
  void searchAll(const std::vector<Cuts>& partitions) {
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
    for (size_t k = 0; k < regions.size(); ++k) todo.push_back(k);
    runAll(regions, texts, todo);
  }

 private:
  void runAll(const std::vector<Region>& regions, const std::vector<std::string>& texts,
              const std::vector<size_t>& todo) {
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
        // One operator is one launch already: nothing to search.
        Result r = regions[k].end - regions[k].begin > 1 ? search_(regions[k].program, seconds, jobsEach) : Result{};
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
  out.initialCuts = chooseCuts(program, options.rule);
  out.cuts = out.initialCuts;
  if (!searcher.evaluate(out.cuts, &out.stitched, &out.costUs, &out.regions, &out.bests, &out.error)) return out;

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
    if (tried++ >= options.cutMoves || searcher.secondsLeft() < options.secondsPerRegion) break;
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
      ir::Graph g;
      double cost = 0;
      std::vector<RegionTiming> timings;
      std::vector<ir::Graph> bests;
      std::string error;
      ++out.movesTried;
      if (!searcher.evaluate(c, &g, &cost, &timings, &bests, &error)) continue;
      if (options.log)
        options.log(fmt::format("cut {} moved to {}: {:.2f} us (best so far {:.2f} us)", from,
                                c[static_cast<size_t>(j)], cost, out.costUs));
      if (cost < out.costUs - 1e-9) {
        ++out.movesKept;
        out.cuts = c;
        out.stitched = std::move(g);
        out.costUs = cost;
        out.regions = std::move(timings);
        out.bests = std::move(bests);
      }
    }
  }
  out.stats = searcher.stats();
  out.stats.seconds = since(start);
  return out;
}

}  // namespace mirage::search
