// Regions (search/regions.h), part 1: where to cut a program (the row
// barriers and the cheapest cuts within the size bound) and the canonical
// sub-programs of a partition.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

#include "mirage/ir/check.h"
#include "mirage/search/regions.h"

namespace mirage::search {
namespace {

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

// No operator in [b, e) reads a value produced in [s, b): within the region
// [s, e), the operators before b and those after it are independent (they
// may read the same region inputs; values they pass on leave the region as
// its outputs).
bool separatesWithin(const ir::Graph& g, const Positions& p, int s, int b, int e) {
  for (int k = b; k < e; ++k)
    for (ir::ValueId in : g.ops[static_cast<size_t>(p.ops[static_cast<size_t>(k)])].inputs) {
      int q = p.producer[static_cast<size_t>(in)];
      if (q >= s && q < b) return false;
    }
  return true;
}

// Cuts with every region of `cuts` that falls apart into independent parts
// cut between them (docs/search.md, "Independent parts").
Cuts splitParts(const ir::Graph& program, const Cuts& cuts) {
  Positions p = positionsOf(program);
  std::vector<int> edges = {0};
  edges.insert(edges.end(), cuts.begin(), cuts.end());
  edges.push_back(static_cast<int>(p.ops.size()));
  Cuts out = cuts;
  for (size_t k = 0; k + 1 < edges.size(); ++k)
    for (int s = edges[k], b = s + 1; b < edges[k + 1]; ++b)
      if (separatesWithin(program, p, s, b, edges[k + 1])) {
        out.push_back(b);
        s = b;
      }
  std::sort(out.begin(), out.end());
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
  // Independent parts are cut apart first, so that they are not cut within.
  cuts = splitParts(program, cuts);
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
  return splitParts(program, cuts);
}

Cuts partCuts(const ir::Graph& program) { return splitParts(program, {}); }

std::vector<Region> splitRegions(const ir::Graph& program, const Cuts& cuts, std::string* error) {
  Positions p = positionsOf(program);
  int n = static_cast<int>(p.ops.size());
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
      auto nameOf = [&](ir::ValueId v) {
        auto o = outputIndex.find(v);
        return o == outputIndex.end() ? std::string() : fmt::format("o{}", o->second);
      };
      if (op.kind == ir::OpKind::Kernel) {
        // A custom kernel of the input is copied as it is (its body reads
        // its arguments by position).
        std::vector<std::string> names;
        for (ir::ValueId v : op.results) names.push_back(nameOf(v));
        std::vector<ir::ValueId> rs;
        if (ir::Error e = ir::addKernel(g, c, static_cast<int>(op.results.size()), names, &rs); !e.empty()) {
          *error = e;
          return {};
        }
        for (size_t i = 0; i < rs.size(); ++i) local[static_cast<size_t>(op.results[i])] = rs[i];
        continue;
      }
      ir::ValueId r = ir::kNoValue;
      if (ir::Error e = ir::addOp(g, c, nullptr, &r, nameOf(op.results[0])); !e.empty()) {
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

}  // namespace mirage::search
