// Layout simplification (see layout_rewrite.h): passes that rebuild the
// program op by op, applying the first rule that fits each operation (its
// operands already rebuilt, so a rule sees what earlier rules made of them),
// until a pass changes nothing; then equal operations are merged and dead
// ones dropped.
#include "mirage/search/layout_rewrite.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "mirage/ir/check.h"
#include "segments.h"

namespace mirage::search {
namespace {

using ir::Graph;
using ir::Op;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

// How deep a slice is pushed through element-wise operators towards the
// inputs: RoPE needs two (add of muls of inputs); deeper chains would copy
// more and more of the program for each part.
constexpr int kMaxRangeDepth = 4;
constexpr int kMaxPasses = 16;

// Key of an operation for merging equal ones.
using OpKey = std::tuple<int, std::vector<ValueId>, int, int, int64_t, Shape, int64_t, int64_t, std::string>;

OpKey keyOf(const Op& op) {
  return {static_cast<int>(op.kind), op.inputs, op.dim, op.dim1, op.size, op.shapeArg, op.start, op.end, op.scalarText};
}

class Pass {
 public:
  explicit Pass(const Graph& in) : in_(in) {
    out_.name = in.name;
    out_.dtype = in.dtype;
  }

  // Rebuilds `in` into `out`, applying the rules and merging equal
  // operations. False on an internal error (a rule built an illegal
  // operation), which leaves the program as it was.
  bool run() {
    std::vector<ValueId> map(in_.values.size(), ir::kNoValue);
    std::vector<bool> isOutput(in_.values.size(), false);
    for (ValueId o : in_.outputs) isOutput[static_cast<size_t>(o)] = true;
    for (const Op& op : in_.ops) {
      ValueId r0 = op.results.empty() ? ir::kNoValue : op.results[0];
      const std::string& name = r0 == ir::kNoValue ? std::string() : in_.value(r0).name;
      if (op.kind == OpKind::Input) {
        ValueId v;
        if (!ir::addInput(out_, name, in_.value(r0).shape, &v).empty()) return false;
        map[static_cast<size_t>(r0)] = v;
        continue;
      }
      if (op.kind == OpKind::Const) {
        map[static_cast<size_t>(r0)] = constant(op.scalarText);
        continue;
      }
      if (op.kind == OpKind::Kernel) return false;
      Op copy = op;
      for (ValueId& x : copy.inputs) x = map[static_cast<size_t>(x)];
      const size_t before = out_.values.size();
      ValueId r = rewrite(copy);
      if (failed_) return false;
      if (r != ir::kNoValue) {
        // The replacement takes the value's name if it is new; an output
        // must keep its name, so a rule that lands on an existing value
        // (slice(concat(a, b)) = a) does not apply to an output.
        bool fresh = static_cast<size_t>(r) >= before && out_.value(r).name.empty();
        if (fresh && !name.empty()) out_.values[static_cast<size_t>(r)].name = name;
        if (!fresh && isOutput[static_cast<size_t>(r0)] && !name.empty()) r = ir::kNoValue;
      }
      if (r != ir::kNoValue) {
        changed_ = true;
      } else {
        r = emit(copy, name, isOutput[static_cast<size_t>(r0)]);
        if (r == ir::kNoValue) return false;
      }
      map[static_cast<size_t>(r0)] = r;
    }
    for (ValueId o : in_.outputs) out_.outputs.push_back(map[static_cast<size_t>(o)]);
    return true;
  }

  bool changed() const { return changed_; }
  Graph& result() { return out_; }

 private:
  const Shape& shape(ValueId v) const { return out_.value(v).shape; }
  const Op& producer(ValueId v) const { return out_.producer(v); }
  int rank(ValueId v) const { return static_cast<int>(shape(v).size()); }

  ValueId constant(const std::string& text) {
    auto it = consts_.find(text);
    if (it != consts_.end()) return it->second;
    return consts_[text] = ir::addConst(out_, text);
  }

  // Appends op (inputs already in out_), or returns the equal operation
  // appended before. A named output gets an operation of its own.
  ValueId emit(Op op, const std::string& name = {}, bool keepOwn = false) {
    op.results.clear();
    OpKey key = keyOf(op);
    if (!keepOwn) {
      auto it = seen_.find(key);
      if (it != seen_.end()) return it->second;
    }
    ValueId v = ir::kNoValue;
    if (!ir::addOp(out_, std::move(op), nullptr, &v, name).empty()) {
      failed_ = true;
      return ir::kNoValue;
    }
    seen_.emplace(std::move(key), v);
    return v;
  }

  ValueId unary(OpKind kind, ValueId a) {
    Op op;
    op.kind = kind;
    op.inputs = {a};
    return emit(op);
  }
  ValueId binary(OpKind kind, ValueId a, ValueId b) {
    Op op;
    op.kind = kind;
    op.inputs = {a, b};
    return emit(op);
  }
  ValueId slice(ValueId v, int dim, int64_t s, int64_t e) {
    if (s == 0 && e == shape(v)[static_cast<size_t>(dim)]) return v;
    Op op;
    op.kind = OpKind::Slice;
    op.inputs = {v};
    op.dim = dim;
    op.start = s;
    op.end = e;
    return emit(op);
  }

  // The dim of operand `o` that result dim `d` of an element-wise operator
  // of rank `r` reads, or -1 when o is broadcast along it.
  int operandDim(ValueId o, int d, int r) const {
    int od = d - (r - rank(o));
    if (od < 0 || shape(o)[static_cast<size_t>(od)] == 1) return -1;
    return od;
  }

  // Split points of a concat along its dim: part i is [b[i], b[i+1]).
  static std::vector<int64_t> bounds(const Graph& g, const Op& concat) {
    std::vector<int64_t> b = {0};
    for (ValueId x : concat.inputs) b.push_back(b.back() + g.value(x).shape[static_cast<size_t>(concat.dim)]);
    return b;
  }

  // Whether v[s:e] along dim can be written without a copy of computed
  // data: it reaches only inputs (as slices of them, views), constants,
  // element-wise operators and parts of concats.
  bool canRange(ValueId v, int dim, int64_t s, int64_t e, int depth) const {
    if (s == 0 && e == shape(v)[static_cast<size_t>(dim)]) return true;
    if (depth > kMaxRangeDepth) return false;
    const Op& p = producer(v);
    if (p.kind == OpKind::Input) return true;
    if (p.kind == OpKind::Slice) return p.dim == dim && producer(p.inputs[0]).kind == OpKind::Input;
    if (p.kind == OpKind::Concat && p.dim == dim) {
      std::vector<int64_t> b = bounds(out_, p);
      for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i] <= s && e <= b[i + 1]) return canRange(p.inputs[i], dim, s - b[i], e - b[i], depth + 1);
      return false;
    }
    if (ir::isElementwise(p.kind)) {
      for (ValueId o : p.inputs) {
        int od = operandDim(o, dim, rank(v));
        if (od >= 0 && !canRange(o, od, s, e, depth + 1)) return false;
      }
      return true;
    }
    return false;
  }

  // v[s:e] along dim, for a range canRange accepts.
  ValueId range(ValueId v, int dim, int64_t s, int64_t e) {
    if (s == 0 && e == shape(v)[static_cast<size_t>(dim)]) return v;
    const Op p = producer(v);  // a copy: emit may grow out_.ops
    if (p.kind == OpKind::Slice) return slice(p.inputs[0], dim, p.start + s, p.start + e);
    if (p.kind == OpKind::Concat) {
      std::vector<int64_t> b = bounds(out_, p);
      for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i] <= s && e <= b[i + 1]) return range(p.inputs[i], dim, s - b[i], e - b[i]);
    }
    if (ir::isElementwise(p.kind)) {
      Op op = p;
      for (ValueId& o : op.inputs) {
        int od = operandDim(o, dim, rank(v));
        if (od >= 0) o = range(o, od, s, e);
      }
      return emit(op);
    }
    return slice(v, dim, s, e);
  }

  // The parts of `v` at split points `b` of its dim `dim`: the operands of a
  // concat at the same points, or ranges of a sliceable value. Empty when
  // neither.
  std::vector<ValueId> partsOf(ValueId v, int dim, const std::vector<int64_t>& b) {
    const Op& p = producer(v);
    if (p.kind == OpKind::Concat && p.dim == dim && bounds(out_, p) == b) return p.inputs;
    for (size_t i = 0; i + 1 < b.size(); ++i)
      if (!canRange(v, dim, b[i], b[i + 1], 0)) return {};
    std::vector<ValueId> parts;
    for (size_t i = 0; i + 1 < b.size(); ++i) parts.push_back(range(v, dim, b[i], b[i + 1]));
    return parts;
  }

  ValueId concat(const std::vector<ValueId>& parts, int dim) {
    Op op;
    op.kind = OpKind::Concat;
    op.inputs = parts;
    op.dim = dim;
    return emit(op);
  }

  // The replacement of `op` (inputs in out_) by the first rule that fits,
  // or kNoValue.
  ValueId rewrite(const Op& op) {
    if (ir::isElementwise(op.kind)) {
      if (ValueId r = signPeephole(op); r != ir::kNoValue) return r;
      return concatThroughElementwise(op);
    }
    if (op.kind == OpKind::Slice) return sliceDown(op);
    if (op.kind == OpKind::Matmul) return splitContraction(op);
    return ir::kNoValue;
  }

  ValueId signPeephole(const Op& op) {
    auto negOperand = [&](ValueId v) { return producer(v).kind == OpKind::Neg ? producer(v).inputs[0] : ir::kNoValue; };
    if (op.kind == OpKind::Neg) {
      if (ValueId x = negOperand(op.inputs[0]); x != ir::kNoValue) return x;
      return ir::kNoValue;
    }
    if (op.inputs.size() != 2) return ir::kNoValue;
    ValueId a = op.inputs[0], b = op.inputs[1];
    ValueId na = negOperand(a), nb = negOperand(b);
    // Only these three kinds have a sign rule; every other kind keeps its
    // negated operand.
    auto minusOne = [&](ValueId v) { return producer(v).kind == OpKind::Const && producer(v).scalar == -1; };
    if (op.kind == OpKind::Mul) {
      // mul(x, -1), as rotate_half is often written, is neg(x).
      if (minusOne(b)) return unary(OpKind::Neg, a);
      if (minusOne(a)) return unary(OpKind::Neg, b);
      if (na != ir::kNoValue) return unary(OpKind::Neg, binary(OpKind::Mul, na, b));
      if (nb != ir::kNoValue) return unary(OpKind::Neg, binary(OpKind::Mul, a, nb));
    } else if (op.kind == OpKind::Add) {
      if (nb != ir::kNoValue) return binary(OpKind::Sub, a, nb);
      if (na != ir::kNoValue) return binary(OpKind::Sub, b, na);
    } else if (op.kind == OpKind::Sub) {
      if (nb != ir::kNoValue) return binary(OpKind::Add, a, nb);
    }
    return ir::kNoValue;
  }

  // f(concat(a1, a2), b) = concat(f(a1, b1), f(a2, b2)).
  ValueId concatThroughElementwise(const Op& op) {
    int r = 0;
    for (ValueId x : op.inputs) r = std::max(r, rank(x));
    int d = -1;
    std::vector<int64_t> b;
    for (ValueId x : op.inputs) {
      const Op& p = producer(x);
      if (p.kind != OpKind::Concat) continue;
      int pd = p.dim + (r - rank(x));
      if (operandDim(x, pd, r) < 0) continue;
      d = pd;
      b = bounds(out_, p);
      break;
    }
    if (d < 0) return ir::kNoValue;
    std::vector<std::vector<ValueId>> parts;  // per operand; empty = used whole
    for (ValueId x : op.inputs) {
      int od = operandDim(x, d, r);
      if (od < 0) {
        parts.emplace_back();
        continue;
      }
      parts.push_back(partsOf(x, od, b));
      if (parts.back().empty()) return ir::kNoValue;
    }
    std::vector<ValueId> pieces;
    for (size_t i = 0; i + 1 < b.size(); ++i) {
      Op piece = op;
      for (size_t j = 0; j < op.inputs.size(); ++j)
        if (!parts[j].empty()) piece.inputs[j] = parts[j][i];
      pieces.push_back(emit(piece));
      if (failed_) return ir::kNoValue;
    }
    return concat(pieces, d);
  }

  // slice(concat(a, b)) within a: a slice of a; a slice of an element-wise
  // operator or of a slice: pushed down to the inputs.
  ValueId sliceDown(const Op& op) {
    ValueId v = op.inputs[0];
    const Op& p = producer(v);
    if (p.kind == OpKind::Input) return ir::kNoValue;
    if (p.kind == OpKind::Concat && p.dim == op.dim) {
      std::vector<int64_t> b = bounds(out_, p);
      for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i] <= op.start && op.end <= b[i + 1]) {
          ValueId part = p.inputs[i];
          if (canRange(part, op.dim, op.start - b[i], op.end - b[i], 0)) return range(part, op.dim, op.start - b[i], op.end - b[i]);
          return slice(part, op.dim, op.start - b[i], op.end - b[i]);
        }
      return ir::kNoValue;
    }
    if (canRange(v, op.dim, op.start, op.end, 0)) return range(v, op.dim, op.start, op.end);
    return ir::kNoValue;
  }

  // A·B with the contracted dim a concat: the sum of the parts' products.
  ValueId splitContraction(const Op& op) {
    ValueId a = op.inputs[0], b = op.inputs[1];
    const int ka = rank(a) - 1, kb = rank(b) - 2;
    std::vector<int64_t> split;
    if (producer(a).kind == OpKind::Concat && producer(a).dim == ka) split = bounds(out_, producer(a));
    else if (producer(b).kind == OpKind::Concat && producer(b).dim == kb) split = bounds(out_, producer(b));
    else return ir::kNoValue;
    std::vector<ValueId> pa = partsOf(a, ka, split), pb = partsOf(b, kb, split);
    if (pa.empty() || pb.empty()) return ir::kNoValue;
    ValueId sum = ir::kNoValue;
    for (size_t i = 0; i < pa.size(); ++i) {
      ValueId m = binary(OpKind::Matmul, pa[i], pb[i]);
      sum = sum == ir::kNoValue ? m : binary(OpKind::Add, sum, m);
      if (failed_) return ir::kNoValue;
    }
    return sum;
  }

  const Graph& in_;
  Graph out_;
  std::map<OpKey, ValueId> seen_;
  std::map<std::string, ValueId> consts_;
  bool changed_ = false;
  bool failed_ = false;
};

// The program without the operations no output depends on (inputs are kept,
// in order: they are the program's signature).
Graph withoutDeadOps(const Graph& g) {
  std::vector<bool> live(g.values.size(), false);
  for (ValueId o : g.outputs) live[static_cast<size_t>(o)] = true;
  std::vector<bool> opLive(g.ops.size(), false);
  for (size_t i = g.ops.size(); i-- > 0;) {
    const Op& op = g.ops[i];
    bool any = op.kind == OpKind::Input;
    for (ValueId r : op.results) any = any || live[static_cast<size_t>(r)];
    if (!any) continue;
    opLive[i] = true;
    for (ValueId x : op.inputs) live[static_cast<size_t>(x)] = true;
  }
  Graph out;
  out.name = g.name;
  out.dtype = g.dtype;
  std::vector<ValueId> map(g.values.size(), ir::kNoValue);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (!opLive[i]) continue;
    Op op = g.ops[i];
    for (ValueId& x : op.inputs) x = map[static_cast<size_t>(x)];
    std::vector<ir::Shape> shapes;
    std::vector<std::string> names;
    for (ValueId r : op.results) {
      shapes.push_back(g.value(r).shape);
      names.push_back(g.value(r).name);
    }
    std::vector<ValueId> old = op.results;
    int index = out.appendOp(std::move(op), shapes, names);
    const Op& added = out.ops[static_cast<size_t>(index)];
    if (added.kind == OpKind::Input) out.inputs.push_back(added.results[0]);
    for (size_t r = 0; r < old.size(); ++r) {
      map[static_cast<size_t>(old[r])] = added.results[r];
      out.values[static_cast<size_t>(added.results[r])].keepF32 = g.value(old[r]).keepF32;
    }
  }
  for (ValueId o : g.outputs) out.outputs.push_back(map[static_cast<size_t>(o)]);
  return out;
}

}  // namespace

bool simplifyLayout(const Graph& program, Graph& out) {
  bool any = false;
  for (const Op& op : program.ops) {
    if (op.kind == OpKind::Kernel) return false;
    any = any || ir::isLayoutOp(op.kind);
  }
  if (!any) return false;
  Graph g = program;
  bool changed = false;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    Pass p(g);
    if (!p.run()) return false;
    if (!p.changed()) break;
    changed = true;
    g = withoutDeadOps(p.result());
  }
  if (!changed) return false;
  out = std::move(g);
  return true;
}

bool simplifiesIntoSmallSegments(const Graph& program, int maxOps) {
  Graph simplified;
  if (!simplifyLayout(program, simplified)) return false;
  std::vector<Segment> segments = splitAtLayoutOps(simplified);
  if (segments.empty()) return false;
  for (const Segment& s : segments) {
    int n = 0;
    for (const Op& op : s.program.ops) n += op.kind != OpKind::Input && op.kind != OpKind::Const;
    if (n > maxOps) return false;
  }
  return true;
}

}  // namespace mirage::search
