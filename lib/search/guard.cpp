// The overflow-guard analysis: signs and "covers" (M >= a) over a graph and
// its kernel bodies. include/mirage/search/guard.h states the rules and why
// each is sound in floating point too.
#include "mirage/search/guard.h"

#include <stdexcept>
#include <unordered_map>

namespace mirage::search {
namespace {

enum Sign : uint8_t { kUnknown = 0, kNonNeg = 1, kNonPos = 2, kZero = 3 };

class Analysis {
 public:
  // `inputSigns`: per g.inputs entry (kernel arguments of a body). Every
  // exp found (in g and in the bodies of its kernels) is appended to `out`,
  // `kernelOp` naming the kernel when g is a body.
  Analysis(const ir::Graph& g, const std::vector<uint8_t>& inputSigns, int kernelOp, std::vector<ExpGuard>& out)
      : g_(g), sign_(g.values.size(), kUnknown) {
    for (size_t i = 0; i < g.inputs.size() && i < inputSigns.size(); ++i)
      sign_[static_cast<size_t>(g.inputs[i])] = inputSigns[i];
    for (size_t o = 0; o < g.ops.size(); ++o) {
      const ir::Op& op = g.ops[o];
      if (op.kind == ir::OpKind::Kernel) {
        analyzeKernel(op, static_cast<int>(o), out);
        continue;
      }
      if (op.kind == ir::OpKind::Exp) out.push_back({kernelOp, static_cast<int>(o), nonPos(op.inputs[0])});
      if (op.results.empty()) continue;
      uint8_t s = signOf(op);
      for (ir::ValueId r : op.results) sign_[static_cast<size_t>(r)] |= s;
    }
  }

  bool nonNeg(ir::ValueId v) const { return sign_[static_cast<size_t>(v)] & kNonNeg; }
  bool nonPos(ir::ValueId v) const { return sign_[static_cast<size_t>(v)] & kNonPos; }
  uint8_t sign(ir::ValueId v) const { return sign_[static_cast<size_t>(v)]; }

  // M >= a element-wise (under broadcasting).
  bool covers(ir::ValueId m, ir::ValueId a) const {
    if (m == a) return true;
    uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(m)) << 32) | static_cast<uint32_t>(a);
    if (auto it = coversMemo_.find(key); it != coversMemo_.end()) return it->second;
    coversMemo_[key] = false;  // no cycles in a DAG, but keep recursion finite
    bool r = coversUncached(m, a);
    coversMemo_[key] = r;
    return r;
  }

 private:
  const ir::Graph& g_;
  std::vector<uint8_t> sign_;
  mutable std::unordered_map<uint64_t, bool> coversMemo_;

  const ir::Op& prod(ir::ValueId v) const { return g_.producer(v); }

  // A kernel's results get the signs of what its body saves; facts about
  // its arguments other than signs do not cross the kernel boundary.
  void analyzeKernel(const ir::Op& op, int index, std::vector<ExpGuard>& out) {
    if (!op.body) return;
    std::vector<uint8_t> args;
    for (ir::ValueId in : op.inputs) args.push_back(sign(in));
    Analysis body(*op.body, args, index, out);
    for (const ir::Op& b : op.body->ops)
      if (b.kind == ir::OpKind::Save && b.resultIndex >= 0 && static_cast<size_t>(b.resultIndex) < op.results.size())
        sign_[static_cast<size_t>(op.results[static_cast<size_t>(b.resultIndex)])] = body.sign(b.inputs[0]);
  }

  // The value of a Const operand, or nullptr.
  const double* constOf(ir::ValueId v) const {
    const ir::Op& p = prod(v);
    return p.kind == ir::OpKind::Const ? &p.scalar : nullptr;
  }

  // A reduce_max whose result broadcasts back over its input: the reduced
  // dim has extent 1 (or is unchanged).
  bool isFullMax(const ir::Op& op) const {
    if (op.kind != ir::OpKind::ReduceMax) return false;
    const ir::Shape& in = g_.value(op.inputs[0]).shape;
    const ir::Shape& out = g_.value(op.results[0]).shape;
    size_t d = static_cast<size_t>(op.dim);
    return d < in.size() && d < out.size() && (out[d] == 1 || out[d] == in[d]);
  }

  bool coversUncached(ir::ValueId m, ir::ValueId a) const {
    const ir::Op& pm = prod(m);
    // A maximum of something that covers a: max over a dim (every element
    // of the dim is <= it), the running maximum in the same iteration.
    if (isFullMax(pm) && covers(pm.inputs[0], a)) return true;
    if (pm.kind == ir::OpKind::Scan && covers(pm.inputs[0], a)) return true;
    // M + c with c >= 0, M - c with c <= 0.
    if (pm.kind == ir::OpKind::Add && ((nonNeg(pm.inputs[1]) && covers(pm.inputs[0], a)) ||
                                       (nonNeg(pm.inputs[0]) && covers(pm.inputs[1], a))))
      return true;
    if (pm.kind == ir::OpKind::Sub && nonPos(pm.inputs[1]) && covers(pm.inputs[0], a)) return true;
    const ir::Op& pa = prod(a);
    // a - c with c >= 0, a + c with c <= 0.
    if (pa.kind == ir::OpKind::Sub && nonNeg(pa.inputs[1]) && covers(m, pa.inputs[0])) return true;
    if (pa.kind == ir::OpKind::Add && ((nonPos(pa.inputs[1]) && covers(m, pa.inputs[0])) ||
                                       (nonPos(pa.inputs[0]) && covers(m, pa.inputs[1]))))
      return true;
    // A maximum over the loop of maxima: accum(x, op=max) >= accum(y, op=max)
    // when x >= y in every iteration.
    if (pm.kind == ir::OpKind::Accum && pa.kind == ir::OpKind::Accum && pm.accumOp == ir::AccumOp::Max &&
        pa.accumOp == ir::AccumOp::Max && pm.inputs.size() == 1 && pa.inputs.size() == 1 &&
        covers(pm.inputs[0], pa.inputs[0]))
      return true;
    // Both scaled by the same positive constant: c·M >= c·a.
    if (pm.kind == ir::OpKind::Mul && pa.kind == ir::OpKind::Mul) {
      const double* cm = constOf(pm.inputs[1]);
      const double* ca = constOf(pa.inputs[1]);
      if (cm && ca && *cm == *ca && *cm > 0 && covers(pm.inputs[0], pa.inputs[0])) return true;
    }
    if (pm.kind == ir::OpKind::Div && pa.kind == ir::OpKind::Div) {
      const double* cm = constOf(pm.inputs[1]);
      const double* ca = constOf(pa.inputs[1]);
      if (cm && ca && *cm == *ca && *cm > 0 && covers(pm.inputs[0], pa.inputs[0])) return true;
    }
    return false;
  }

  uint8_t signOf(const ir::Op& op) const {
    auto in = [&](size_t i) { return sign(op.inputs[i]); };
    auto product = [&](uint8_t a, uint8_t b) {
      uint8_t r = kUnknown;
      if ((a & kNonNeg) && (b & kNonNeg)) r |= kNonNeg;
      if ((a & kNonPos) && (b & kNonPos)) r |= kNonNeg;
      if ((a & kNonNeg) && (b & kNonPos)) r |= kNonPos;
      if ((a & kNonPos) && (b & kNonNeg)) r |= kNonPos;
      return r;
    };
    switch (op.kind) {
      case ir::OpKind::Input: return kUnknown;  // set from the caller's facts
      case ir::OpKind::Const:
        return static_cast<uint8_t>((op.scalar >= 0 ? kNonNeg : 0) | (op.scalar <= 0 ? kNonPos : 0));
      case ir::OpKind::Matmul:
      case ir::OpKind::Mul: return product(in(0), in(1));
      case ir::OpKind::Div: {
        // Only by a positive constant: a divisor that may be 0 gives NaN for 0/0.
        const double* c = constOf(op.inputs[1]);
        if (!c || *c == 0) return kUnknown;
        return product(in(0), *c > 0 ? kNonNeg : kNonPos);
      }
      case ir::OpKind::Add: return in(0) & in(1);
      case ir::OpKind::Sub: {
        uint8_t r = kUnknown;
        if (((in(0) & kNonPos) && (in(1) & kNonNeg)) || covers(op.inputs[1], op.inputs[0])) r |= kNonPos;
        if (((in(0) & kNonNeg) && (in(1) & kNonPos)) || covers(op.inputs[0], op.inputs[1])) r |= kNonNeg;
        return r;
      }
      case ir::OpKind::Exp:
      case ir::OpKind::Square:
      case ir::OpKind::Sqrt:
      case ir::OpKind::Rsqrt:
      case ir::OpKind::Relu: return kNonNeg;
      case ir::OpKind::Abs:
      case ir::OpKind::Sigmoid: return kNonNeg;
      case ir::OpKind::Tanh: return in(0);  // the sign of its argument
      case ir::OpKind::Neg: {
        uint8_t a = in(0);
        return static_cast<uint8_t>(((a & kNonNeg) ? kNonPos : 0) | ((a & kNonPos) ? kNonNeg : 0));
      }
      // The larger is >= 0 when either is; <= 0 when both are (and the
      // smaller the other way round).
      case ir::OpKind::Maximum:
        return static_cast<uint8_t>(((in(0) | in(1)) & kNonNeg) | (in(0) & in(1) & kNonPos));
      case ir::OpKind::Minimum:
        return static_cast<uint8_t>((in(0) & in(1) & kNonNeg) | ((in(0) | in(1)) & kNonPos));
      case ir::OpKind::Silu:
      case ir::OpKind::Gelu:
      case ir::OpKind::Log: return kUnknown;
      case ir::OpKind::ReduceSum:
      case ir::OpKind::ReduceMean:
      case ir::OpKind::ReduceMax:
      case ir::OpKind::Scan:
      case ir::OpKind::Transpose:
      case ir::OpKind::Reshape:
      case ir::OpKind::Slice:
      case ir::OpKind::Tile:
        return in(0);
      case ir::OpKind::Concat: {
        uint8_t r = kNonNeg | kNonPos;
        for (size_t i = 0; i < op.inputs.size(); ++i) r &= in(i);
        return r;
      }
      case ir::OpKind::Accum:
        // A rescaled sum multiplies what it holds by exp(·) >= 0 before it adds.
        return in(0);
      case ir::OpKind::Kernel:
        return kUnknown;  // per result, see analyzeKernel
      case ir::OpKind::Save: return kUnknown;
      MIRAGE_CASES_SHORTHAND return kUnknown;  // expanded after parsing: never here
    }
    return kUnknown;
  }
};

}  // namespace

std::vector<ExpGuard> analyzeExpGuards(const ir::Graph& g) {
  std::vector<ExpGuard> out;
  Analysis top(g, {}, -1, out);
  return out;
}

bool asksForGuard(const ir::Graph& input) {
  // cli.md: where the input exponentiates a value minus a maximum that
  // covers it, every exp of a candidate must be guarded. One guarded exp of
  // the input is enough to ask, even beside unguarded ones: such an input
  // keeps only its own lowering or candidates that guard every exp.
  for (const ExpGuard& x : analyzeExpGuards(input))
    if (x.guarded) return true;
  return false;
}

bool guardsAllExps(const ir::Graph& g) {
  for (const ExpGuard& x : analyzeExpGuards(g))
    if (!x.guarded) return false;
  return true;
}

}  // namespace mirage::search
