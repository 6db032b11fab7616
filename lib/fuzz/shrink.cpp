// The shrinker (shrink.h). Proposals are ordered smallest first (by
// statements, then elements), so the first one that still fails is also the
// biggest step; a round ends at the first success, and the search ends after
// a round without one.
#include "mirage/fuzz/shrink.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

#include "mirage/fuzz/generate.h"
#include "mirage/ir/printer.h"
#include "rewrite.h"

namespace mirage::fuzz {
namespace {

using ir::OpKind;
using ir::ValueId;

int64_t totalElements(const ir::Graph& g) {
  int64_t n = 0;
  for (const ir::Value& v : g.values) n += ir::numElements(v.shape);
  return n;
}

std::vector<Edit> proposals(const ir::Graph& g) {
  std::vector<Edit> edits;
  // Outputs, one at a time.
  if (g.outputs.size() > 1)
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      Edit e;
      for (size_t j = 0; j < g.outputs.size(); ++j)
        if (j != i) e.outputs.push_back(g.outputs[j]);
      edits.push_back(e);
    }
  // Statements: bypassed by an operand, or cut into an input.
  for (const ir::Op& op : g.ops) {
    if (op.kind == OpKind::Input || op.kind == OpKind::Const || op.results.empty()) continue;
    ValueId r = op.results[0];
    for (ValueId in : op.inputs) {
      if (g.producer(in).kind == OpKind::Const) continue;
      Edit e;
      e.replace[r] = in;
      edits.push_back(e);
    }
    bool isOutput = std::find(g.outputs.begin(), g.outputs.end(), r) != g.outputs.end();
    if (!isOutput) {
      Edit e;
      e.cut.push_back(r);
      edits.push_back(e);
    }
  }
  // Extents, everywhere they occur in the inputs.
  std::set<int64_t> extents;
  for (ValueId in : g.inputs)
    for (int64_t e : g.value(in).shape)
      if (e > 1) extents.insert(e);
  for (int64_t e : extents) {
    for (int64_t to : {int64_t{1}, e / 2, e - 1}) {
      if (to < 1 || to >= e) continue;
      Edit ed;
      ed.extents[e] = to;
      edits.push_back(ed);
    }
  }
  return edits;
}

}  // namespace

ir::Graph shrink(const ir::Graph& program, Failure label, const FailureTest& test, int maxTests,
                 ShrinkStats* stats) {
  ShrinkStats local;
  ShrinkStats& s = stats ? *stats : local;
  s.statementsBefore = countStatements(program);
  ir::Graph current = program;
  std::set<std::string> tried;
  tried.insert(ir::printGraph(current));
  bool progress = true;
  while (progress && s.tests < maxTests) {
    progress = false;
    std::vector<std::pair<std::tuple<int, int64_t, size_t>, ir::Graph>> smaller;
    auto key = std::make_tuple(countStatements(current), totalElements(current), current.outputs.size());
    for (const Edit& e : proposals(current)) {
      auto g = rebuild(current, e);
      if (!g) continue;
      auto k = std::make_tuple(countStatements(*g), totalElements(*g), g->outputs.size());
      if (!(k < key)) continue;
      if (!tried.insert(ir::printGraph(*g)).second) continue;
      smaller.emplace_back(k, std::move(*g));
    }
    std::stable_sort(smaller.begin(), smaller.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [k, g] : smaller) {
      if (s.tests >= maxTests) break;
      ++s.tests;
      if (test(g) == label) {
        current = std::move(g);
        ++s.steps;
        progress = true;
        break;
      }
    }
  }
  s.statementsAfter = countStatements(current);
  return current;
}

}  // namespace mirage::fuzz
