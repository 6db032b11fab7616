// Structural equality of graphs (see mirage/ir/equal.h).
#include "mirage/ir/equal.h"

#include <fmt/format.h>

#include <vector>

namespace mirage::ir {
namespace {

// The operations that are not constants, in order: constants are printed
// inline and may move relative to their users' neighbours.
std::vector<const Op*> nonConstOps(const Graph& g) {
  std::vector<const Op*> ops;
  for (const Op& op : g.ops)
    if (op.kind != OpKind::Const) ops.push_back(&op);
  return ops;
}

class Comparer {
 public:
  bool run(const Graph& a, const Graph& b, bool isBody) {
    if (!isBody && a.name != b.name) return fail(fmt::format("graph names '{}' and '{}'", a.name, b.name));
    if (a.dtype != b.dtype) return fail("dtypes differ");
    if (a.inputs.size() != b.inputs.size()) return fail("numbers of inputs differ");
    if (a.outputs.size() != b.outputs.size()) return fail("numbers of outputs differ");
    std::vector<ValueId> map(a.values.size(), kNoValue);
    std::vector<const Op*> oa = nonConstOps(a), ob = nonConstOps(b);
    if (oa.size() != ob.size())
      return fail(fmt::format("{} operations vs {}", oa.size(), ob.size()));
    for (size_t i = 0; i < oa.size(); ++i) {
      const Op& x = *oa[i];
      const Op& y = *ob[i];
      std::string where = fmt::format("operation {} ('{}')", i, opName(x.kind));
      if (x.kind != y.kind)
        return fail(fmt::format("{} is '{}' in the second graph", where, opName(y.kind)));
      if (x.inputs.size() != y.inputs.size()) return fail(where + ": operand counts differ");
      for (size_t j = 0; j < x.inputs.size(); ++j) {
        const Op& px = a.producer(x.inputs[j]);
        const Op& py = b.producer(y.inputs[j]);
        if (px.kind == OpKind::Const || py.kind == OpKind::Const) {
          if (px.kind != py.kind || px.scalarText != py.scalarText)
            return fail(fmt::format("{}: operand {} differs", where, j + 1));
        } else if (map[static_cast<size_t>(x.inputs[j])] != y.inputs[j]) {
          return fail(fmt::format("{}: operand {} differs", where, j + 1));
        }
      }
      if (!sameAttributes(x, y)) return fail(where + ": attributes differ");
      if (x.body || y.body) {
        if (!x.body || !y.body) return fail(where + ": only one has a body");
        if (!run(*x.body, *y.body, true)) return fail(where + ": bodies differ");
      }
      if (x.results.size() != y.results.size()) return fail(where + ": result counts differ");
      for (size_t r = 0; r < x.results.size(); ++r) {
        const Value& vx = a.value(x.results[r]);
        const Value& vy = b.value(y.results[r]);
        if (vx.shape != vy.shape)
          return fail(fmt::format("{}: shapes {} and {}", where, shapeToString(vx.shape),
                                  shapeToString(vy.shape)));
        if (!vx.name.empty() && vx.name != vy.name)
          return fail(fmt::format("{}: named '{}' and '{}'", where, vx.name, vy.name));
        map[static_cast<size_t>(x.results[r])] = y.results[r];
      }
    }
    for (size_t i = 0; i < a.inputs.size(); ++i)
      if (map[static_cast<size_t>(a.inputs[i])] != b.inputs[i]) return fail("input order differs");
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (map[static_cast<size_t>(a.outputs[i])] != b.outputs[i])
        return fail(fmt::format("output {} differs", i + 1));
    return true;
  }

  std::string why;

 private:
  static bool sameAttributes(const Op& x, const Op& y) {
    switch (x.kind) {
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::ReduceMax: return x.dim == y.dim && x.size == y.size;
      case OpKind::Transpose: return x.dim == y.dim && x.dim1 == y.dim1;
      // Reshape's result shape (compared with the values) is all it says.
      case OpKind::Reshape: return true;
      case OpKind::Concat: return x.dim == y.dim;
      case OpKind::Slice: return x.dim == y.dim && x.start == y.start && x.end == y.end;
      case OpKind::Tile: return x.imap == y.imap && x.fmap == y.fmap;
      case OpKind::Accum: return x.accumOp == y.accumOp;
      case OpKind::Scan: return x.accumOp == y.accumOp;
      case OpKind::Save: return x.omap == y.omap && x.resultIndex == y.resultIndex && x.saveF32 == y.saveF32;
      case OpKind::Kernel:
        return x.config.grid == y.config.grid && x.config.forloop == y.config.forloop &&
               x.config.block == y.config.block;
      MIRAGE_CASES_SHORTHAND return x.dim == y.dim && x.scalarText == y.scalarText;
      MIRAGE_CASES_LEAF  // constants are compared by the caller
      MIRAGE_CASES_CONTRACTION
      MIRAGE_CASES_BINARY
      MIRAGE_CASES_UNARY return true;
    }
    return true;
  }

  bool fail(std::string msg) {
    why = why.empty() ? msg : msg + ": " + why;
    return false;
  }
};

}  // namespace

bool sameGraph(const Graph& a, const Graph& b, std::string* why) {
  Comparer c;
  bool same = c.run(a, b, false);
  if (!same && why) *why = c.why;
  return same;
}

}  // namespace mirage::ir
