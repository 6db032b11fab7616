// Cutting a program at its layout operators and stitching searched segments
// back (see segments.h).
#include "segments.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"

namespace mirage::search {
namespace {

using ir::Graph;
using ir::Op;
using ir::OpKind;
using ir::ValueId;

int find(std::vector<int>& parent, int x) {
  while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
  return x;
}

// Above this many operators a segment is cut once more, before its
// reductions (cutLargeComponents).
constexpr int kMaxSegmentOps = 16;

bool isOrdinary(const Op& op) {
  return op.kind != OpKind::Input && op.kind != OpKind::Const && !ir::isLayoutOp(op.kind);
}

// Appends op (of `from`) to `to` with its operands mapped; results are
// recorded in `map`. Kernels keep their bodies.
std::string appendMapped(const Graph& from, const Op& op, std::vector<ValueId>& map, Graph& to,
                         const std::vector<std::string>& names) {
  Op copy = op;
  for (ValueId& in : copy.inputs) in = map[static_cast<size_t>(in)];
  if (op.kind == OpKind::Kernel) {
    std::vector<ValueId> results;
    if (std::string e = ir::addKernel(to, std::move(copy), static_cast<int>(op.results.size()), names, &results);
        !e.empty())
      return e;
    for (size_t r = 0; r < results.size(); ++r) map[static_cast<size_t>(op.results[r])] = results[r];
    return {};
  }
  ValueId v = ir::kNoValue;
  if (std::string e = ir::addOp(to, std::move(copy), nullptr, &v, names.empty() ? std::string() : names[0]); !e.empty())
    return e;
  (void)from;
  map[static_cast<size_t>(op.results[0])] = v;
  return {};
}

// The stage of every value and op: a layout op's result is one stage later
// than its latest operand, except a slice of a program input that only
// kernels read, which is a view (ir::isLayoutView): a kernel reads it in
// place like the input itself, so it is stage 0 and does not cut the
// program (RoPE's halves of Q and K, after layout_rewrite.h).
int stages(const Graph& g, std::vector<int>& stage, std::vector<int>& opStage) {
  stage.assign(g.values.size(), 0);
  opStage.assign(g.ops.size(), 0);
  int last = 0;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    int s = 0;
    for (ValueId in : op.inputs)
      if (g.producer(in).kind != OpKind::Const) s = std::max(s, stage[static_cast<size_t>(in)]);
    bool inputView = op.kind == OpKind::Slice && g.producer(op.inputs[0]).kind == OpKind::Input && ir::isLayoutView(g, op);
    if (ir::isLayoutOp(op.kind) && !inputView) ++s;
    opStage[i] = s;
    last = std::max(last, s);
    for (ValueId r : op.results) stage[static_cast<size_t>(r)] = s;
  }
  return last;
}

// The index of the ordinary op of op i's stage that produces `in`, or -1.
int producerInStage(const Graph& g, const std::vector<int>& opStage, size_t i, ValueId in) {
  int p = g.value(in).op;
  return isOrdinary(g.ops[static_cast<size_t>(p)]) && opStage[static_cast<size_t>(p)] == opStage[i] ? p : -1;
}

// A component of more than kMaxSegmentOps operators is cut once more,
// before its reductions: phase 0 holds the operators that depend on no
// reduction of the component (RoPE's rotations of Q and K, once
// layout_rewrite.h has split them into halves, and the scores
// Q1·K1 + Q2·K2), phase 1 the reductions and what depends on them (softmax
// and P·V), each cut into the pieces connected through the values they
// pass. Phase 1 only reads phase 0, so the segments of a stage are searched
// in phase order. Searched whole, rope_attention's 22 operators gave no
// μGraph in 30 s: with the scores a sum of two products, the abstract
// expressions split exp(a + b) into exp(a)·exp(b), and the one fused
// kernel the search finds is exp(a - max a)·exp(b - max b), which
// underflows where the program's softmax does not. Cut before the softmax,
// the scores with both rotations are one kernel after 2 s.
void cutLargeComponents(const Graph& g, const std::vector<int>& opStage, std::vector<int>& parent,
                        std::vector<int>& phase) {
  std::map<int, int> size;
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (isOrdinary(g.ops[i])) ++size[find(parent, static_cast<int>(i))];
  std::vector<char> split(g.ops.size(), 0);
  bool anySplit = false;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    if (!isOrdinary(op) || size[find(parent, static_cast<int>(i))] <= kMaxSegmentOps) continue;
    split[i] = anySplit = true;
    phase[i] = ir::isReduction(op.kind);
    for (ValueId in : op.inputs)
      if (int p = producerInStage(g, opStage, i, in); p >= 0) phase[i] = std::max(phase[i], phase[static_cast<size_t>(p)]);
  }
  if (!anySplit) return;
  // Joined again, through the values passed within one phase.
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!isOrdinary(g.ops[i])) continue;
    for (ValueId in : g.ops[i].inputs)
      if (int p = producerInStage(g, opStage, i, in); p >= 0 && phase[static_cast<size_t>(p)] == phase[i])
        parent[static_cast<size_t>(find(parent, static_cast<int>(i)))] = find(parent, p);
  }
}

}  // namespace

std::vector<Segment> splitAtLayoutOps(const Graph& g) {
  bool any = false;
  for (const Op& op : g.ops) any = any || ir::isLayoutOp(op.kind);
  if (!any) return {};

  // Stages and the ops of each.
  std::vector<int> stage, opStage;
  int last = stages(g, stage, opStage);
  // Components: ordinary ops of one stage joined through the values they
  // pass each other.
  auto sameStageProducer = [&](size_t i, ValueId in) { return producerInStage(g, opStage, i, in); };
  std::vector<int> parent(g.ops.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!isOrdinary(g.ops[i])) continue;
    for (ValueId in : g.ops[i].inputs)
      if (int p = sameStageProducer(i, in); p >= 0) parent[static_cast<size_t>(find(parent, static_cast<int>(i)))] = find(parent, p);
  }
  std::vector<int> phase(g.ops.size(), 0);
  cutLargeComponents(g, opStage, parent, phase);
  // Uses outside each op's component (or as program outputs) make outputs.
  std::set<ValueId> programOutputs(g.outputs.begin(), g.outputs.end());
  std::map<int, std::vector<size_t>> members;  // component root -> op indices, in order
  for (size_t i = 0; i < g.ops.size(); ++i)
    if (isOrdinary(g.ops[i])) members[find(parent, static_cast<int>(i))].push_back(i);
  std::set<std::string> taken;
  for (const ir::Value& v : g.values)
    if (!v.name.empty()) taken.insert(v.name);
  auto nameOf = [&](ValueId v) {
    if (!g.value(v).name.empty()) return g.value(v).name;
    for (int k = 0;; ++k) {
      std::string n = k == 0 ? fmt::format("seg_v{}", v) : fmt::format("seg_v{}_{}", v, k);
      if (taken.insert(n).second) return n;
    }
  };
  std::vector<std::string> names(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) names[v] = nameOf(static_cast<ValueId>(v));

  std::vector<Segment> out;
  // Within a stage, phase 0 before phase 1 (cutLargeComponents).
  for (int s = 0; s <= last; ++s)
    for (int ph = 0; ph < 2; ++ph)
    for (auto& [root, ops] : members) {
      if (opStage[ops.front()] != s || phase[ops.front()] != ph) continue;
      Segment seg;
      seg.stage = s;
      Graph& p = seg.program;
      p.name = fmt::format("{}_segment{}", g.name.empty() ? "program" : g.name, out.size());
      p.dtype = g.dtype;
      std::set<size_t> mine(ops.begin(), ops.end());
      std::vector<ValueId> map(g.values.size(), ir::kNoValue);
      for (size_t i : ops) {
        const Op& op = g.ops[i];
        for (ValueId in : op.inputs) {
          if (map[static_cast<size_t>(in)] != ir::kNoValue) continue;
          const Op& prod = g.producer(in);
          if (prod.kind == OpKind::Const) {
            map[static_cast<size_t>(in)] = ir::addConst(p, prod.scalarText);
            continue;
          }
          if (!mine.count(static_cast<size_t>(g.value(in).op))) {
            ValueId v;
            if (!ir::addInput(p, names[static_cast<size_t>(in)], g.value(in).shape, &v).empty()) return {};
            map[static_cast<size_t>(in)] = v;
            seg.inputs.push_back(in);
          }
        }
        std::vector<std::string> resultNames;
        for (ValueId r : op.results) resultNames.push_back(g.value(r).name);
        if (!appendMapped(g, op, map, p, resultNames).empty()) return {};
      }
      for (size_t i : ops)
        for (ValueId r : g.ops[i].results) {
          bool outside = programOutputs.count(r) > 0;
          for (size_t j = 0; j < g.ops.size() && !outside; ++j)
            if (!mine.count(j))
              for (ValueId in : g.ops[j].inputs) outside = outside || in == r;
          if (!outside) continue;
          // A segment output is named (the search reports it by name).
          ValueId local = map[static_cast<size_t>(r)];
          if (p.values[static_cast<size_t>(local)].name.empty()) p.values[static_cast<size_t>(local)].name = names[static_cast<size_t>(r)];
          p.outputs.push_back(local);
          seg.outputs.push_back(r);
        }
      out.push_back(std::move(seg));
    }
  return out;
}

std::string stitchSegments(const Graph& g, const std::vector<Segment>& segments,
                           const std::vector<const Graph*>& chosen, Graph& out) {
  out = Graph{};
  out.name = g.name;
  out.dtype = g.dtype;
  std::vector<ValueId> map(g.values.size(), ir::kNoValue);
  for (ValueId in : g.inputs) {
    ValueId v;
    if (std::string e = ir::addInput(out, g.value(in).name, g.value(in).shape, &v); !e.empty()) return e;
    map[static_cast<size_t>(in)] = v;
  }
  std::vector<int> stage, opStage;
  int last = stages(g, stage, opStage);
  for (const Segment& s : segments) last = std::max(last, s.stage);
  for (int s = 0; s <= last; ++s) {
    // The layout ops that feed this stage (their operands are all earlier).
    for (const Op& op : g.ops) {
      if (!ir::isLayoutOp(op.kind) || stage[static_cast<size_t>(op.results[0])] != s) continue;
      if (std::string e = appendMapped(g, op, map, out, {g.value(op.results[0]).name}); !e.empty()) return e;
    }
    for (size_t k = 0; k < segments.size(); ++k) {
      const Segment& seg = segments[k];
      if (seg.stage != s) continue;
      const Graph& c = *chosen[k];
      if (c.inputs.size() != seg.inputs.size() || c.outputs.size() != seg.outputs.size())
        return fmt::format("segment {}: the chosen graph's signature differs", k);
      std::vector<ValueId> local(c.values.size(), ir::kNoValue);
      for (size_t i = 0; i < c.inputs.size(); ++i) local[static_cast<size_t>(c.inputs[i])] = map[static_cast<size_t>(seg.inputs[i])];
      for (const Op& op : c.ops) {
        if (op.kind == OpKind::Input) continue;
        if (op.kind == OpKind::Const) {
          local[static_cast<size_t>(op.results[0])] = ir::addConst(out, op.scalarText);
          continue;
        }
        std::vector<std::string> names;
        for (ValueId r : op.results) names.push_back(c.value(r).name);
        if (std::string e = appendMapped(c, op, local, out, names); !e.empty()) return fmt::format("segment {}: {}", k, e);
      }
      for (size_t i = 0; i < c.outputs.size(); ++i) map[static_cast<size_t>(seg.outputs[i])] = local[static_cast<size_t>(c.outputs[i])];
    }
  }
  for (ValueId o : g.outputs) {
    if (map[static_cast<size_t>(o)] == ir::kNoValue) return "an output was not stitched";
    out.outputs.push_back(map[static_cast<size_t>(o)]);
  }
  return {};
}

}  // namespace mirage::search
