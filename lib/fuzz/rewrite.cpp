// rebuild (rewrite.h): one pass backwards to find what the outputs need
// after the edit, one pass forwards re-adding those operations in order.
#include "rewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "mirage/ir/check.h"

namespace mirage::fuzz {

using ir::OpKind;
using ir::ValueId;

namespace {

// The attributes of a layout op follow an edit: reshape's extents are
// renamed as the inputs' are, and a slice keeps its place in proportion to
// its operand's new extent (the halves of a rotate_half stay halves).
template <class MapExtent>
void followExtents(const ir::Graph& src, const ir::Op& op, const ir::Graph& g, ir::Op& copy,
                   const MapExtent& mapExtent) {
  copy.shapeArg = op.shapeArg;
  for (int64_t& x : copy.shapeArg)
    if (x > 0) x = mapExtent(x);
  copy.start = op.start;
  copy.end = op.end;
  if (op.kind != OpKind::Slice) return;
  const ir::Shape& before = src.value(op.inputs[0]).shape;
  const ir::Shape& after = g.value(copy.inputs[0]).shape;
  size_t d = static_cast<size_t>(op.dim);
  if (d >= before.size() || d >= after.size() || before[d] == after[d]) return;  // the builder judges
  int64_t was = before[d], now = after[d];
  copy.start = op.start * now / was;
  copy.end = std::min(now, std::max(copy.start + 1, (op.end * now + was - 1) / was));
}

}  // namespace

std::optional<ir::Graph> rebuild(const ir::Graph& src, const Edit& edit, std::string* why) {
  auto fail = [&](const std::string& message) -> std::optional<ir::Graph> {
    if (why) *why = message;
    return std::nullopt;
  };
  auto resolve = [&](ValueId v) {
    // Replacements may chain (a replaced by b, b by c); a cycle cannot
    // arise from the shrinker's edits but is cut after a bound anyway.
    for (int hops = 0; hops < 64; ++hops) {
      auto it = edit.replace.find(v);
      if (it == edit.replace.end() || it->second == v) break;
      v = it->second;
    }
    return v;
  };
  std::set<ValueId> cut(edit.cut.begin(), edit.cut.end());
  std::vector<ValueId> outputs = edit.outputs.empty() ? src.outputs : edit.outputs;
  // An output replaced by an unnamed value keeps the output's name, so that
  // messages about a shrunk program still say "out0".
  std::map<ValueId, std::string> outputNames;
  for (ValueId& o : outputs) {
    std::string name = src.value(o).name;
    o = resolve(o);
    if (src.value(o).name.empty()) outputNames.emplace(o, name);
  }

  // Which values are needed.
  std::vector<char> needed(src.values.size(), 0);
  for (ValueId o : outputs) needed[static_cast<size_t>(o)] = 1;
  for (size_t i = src.ops.size(); i-- > 0;) {
    const ir::Op& op = src.ops[i];
    if (op.kind == OpKind::Kernel) return fail("rebuild: custom kernels are not supported");
    bool any = false;
    for (ValueId r : op.results) any = any || needed[static_cast<size_t>(r)];
    if (!any || op.results.empty() || cut.count(op.results[0])) continue;
    for (ValueId in : op.inputs) needed[static_cast<size_t>(resolve(in))] = 1;
  }

  auto mapExtent = [&](int64_t e) {
    auto it = edit.extents.find(e);
    return it == edit.extents.end() ? e : it->second;
  };
  ir::Graph g;
  g.name = src.name;
  g.dtype = src.dtype;
  std::vector<ValueId> map(src.values.size(), ir::kNoValue);
  auto freshName = [&](ValueId v) {
    std::string base = src.value(v).name.empty() ? fmt::format("cut{}", v) : src.value(v).name;
    std::string name = base;
    for (int k = 1; src.findValue(name) != ir::kNoValue && name != src.value(v).name; ++k)
      name = fmt::format("{}_{}", base, k);
    return name;
  };
  for (const ir::Op& op : src.ops) {
    if (op.results.empty() || !needed[static_cast<size_t>(op.results[0])]) continue;
    ValueId r = op.results[0];
    const ir::Value& val = src.value(r);
    if (op.kind == OpKind::Const) {
      map[static_cast<size_t>(r)] = ir::addConst(g, op.scalarText);
      continue;
    }
    if (op.kind == OpKind::Input || cut.count(r)) {
      ir::Shape shape = val.shape;
      for (int64_t& e : shape) e = mapExtent(e);
      ValueId nv = ir::kNoValue;
      std::string name = op.kind == OpKind::Input ? val.name : freshName(r);
      if (ir::Error e = ir::addInput(g, name, shape, &nv); !e.empty()) return fail(e);
      map[static_cast<size_t>(r)] = nv;
      continue;
    }
    ir::Op copy;
    copy.kind = op.kind;
    copy.dim = op.dim;
    copy.dim1 = op.dim1;
    copy.size = op.size == 1 ? 1 : mapExtent(op.size);
    for (ValueId in : op.inputs) {
      ValueId m = map[static_cast<size_t>(resolve(in))];
      if (m == ir::kNoValue) return fail("rebuild: an operand was not rebuilt");
      copy.inputs.push_back(m);
    }
    followExtents(src, op, g, copy, mapExtent);
    ValueId nv = ir::kNoValue;
    std::string name;
    if (std::find(outputs.begin(), outputs.end(), r) != outputs.end())
      name = outputNames.count(r) ? outputNames[r] : val.name;
    ir::Error e = ir::addOp(g, copy, nullptr, &nv, name);
    // A reshape whose operand's extents changed: its result shape (extents
    // renamed) with one extent inferred, the first choice the builder
    // accepts.
    for (size_t i = 0; !e.empty() && copy.kind == OpKind::Reshape && i < val.shape.size(); ++i) {
      ir::Op retry = copy;
      retry.shapeArg = val.shape;
      for (int64_t& x : retry.shapeArg) x = mapExtent(x);
      retry.shapeArg[i] = -1;
      if (ir::addOp(g, retry, nullptr, &nv, name).empty()) e.clear();
    }
    if (!e.empty()) return fail(e);
    map[static_cast<size_t>(r)] = nv;
  }
  std::set<ValueId> seen;
  for (ValueId o : outputs) {
    ValueId m = map[static_cast<size_t>(o)];
    if (m == ir::kNoValue) return fail("rebuild: an output was not rebuilt");
    if (!seen.insert(m).second) continue;  // two outputs became one value
    if (g.producer(m).kind == OpKind::Input || g.producer(m).kind == OpKind::Const)
      return fail("rebuild: an output became an input");
    g.outputs.push_back(m);
  }
  if (ir::Error e = ir::checkProgram(g); !e.empty()) return fail(e);
  return g;
}

}  // namespace mirage::fuzz
