#include "operand_flow.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace mirage::search {
namespace {

// How a program value depends on the source input X.
enum class Dep {
  None,         // not at all
  Elementwise,  // F(X[i], statistics), X's shape, ∂F/∂X[i] not identically zero
  Stats,        // only through sums or means of functions of X (statistics)
  Unknown,      // any other way: no flow is claimed
};

// A value's dependence, and signs that hold on an open dense set of the
// inputs (generically): what a product or quotient needs to keep ∂F/∂X[i]
// from vanishing. A value of Elementwise dependence is generically nonzero:
// with the statistics held by the other elements of its row, it varies
// with X[i].
struct Fact {
  Dep dep = Dep::None;
  bool nonZero = false;
  bool positive = false;
  bool nonNegative = false;
};

Fact unknown() { return Fact{Dep::Unknown}; }

class Analysis {
 public:
  Analysis(const ir::Graph& g, ir::ValueId source) : g_(g), source_(source), producer_(g.values.size(), -1) {
    for (size_t o = 0; o < g.ops.size(); ++o)
      for (ir::ValueId r : g.ops[o].results) producer_[static_cast<size_t>(r)] = static_cast<int>(o);
  }

  // The share of X's elements that A's degrees of freedom are at least
  // (its elements less the values of the statistics A is made with), or
  // none where A is not Elementwise in X.
  std::optional<double> shareOf(ir::ValueId a) {
    const Fact f = of(a);
    if (f.dep != Dep::Elementwise) return std::nullopt;
    const double elements = static_cast<double>(ir::numElements(g_.value(source_).shape));
    if (static_cast<double>(ir::numElements(g_.value(a).shape)) != elements) return std::nullopt;
    double stats = 0;
    for (int r : reductions_)
      stats += static_cast<double>(ir::numElements(g_.value(g_.ops[static_cast<size_t>(r)].results[0]).shape));
    if (stats >= elements) return std::nullopt;
    return (elements - stats) / elements;
  }

 private:
  Fact of(ir::ValueId v) {
    if (v == source_) return Fact{Dep::Elementwise, true, false, false};
    const int p = producer_[static_cast<size_t>(v)];
    if (p < 0) return Fact{Dep::None, true, false, false};  // another input: generically nonzero
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    Fact f = ofOp(g_.ops[static_cast<size_t>(p)], p);
    if (f.dep == Dep::Elementwise &&
        ir::numElements(g_.value(v).shape) != ir::numElements(g_.value(source_).shape))
      f = unknown();  // broadcast beyond X's own elements
    if (f.dep == Dep::Elementwise) f.nonZero = true;
    memo_[v] = f;
    return f;
  }

  bool anyDepends(const ir::Op& op) {
    return std::any_of(op.inputs.begin(), op.inputs.end(), [&](ir::ValueId x) { return of(x).dep != Dep::None; });
  }
  // An operator this analysis does not follow: fine where X is not involved.
  Fact opaque(const ir::Op& op) { return anyDepends(op) ? unknown() : Fact{}; }

  Fact ofOp(const ir::Op& op, int index) {
    switch (op.kind) {
      case ir::OpKind::Input: return Fact{Dep::None, true, false, false};
      case ir::OpKind::Const: return Fact{Dep::None, op.scalar != 0, op.scalar > 0, op.scalar >= 0};
      MIRAGE_CASES_CONTRACTION
      MIRAGE_CASES_LAYOUT
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND
        return opaque(op);
      MIRAGE_CASES_BINARY return binary(op);
      MIRAGE_CASES_UNARY return unary(op);
      MIRAGE_CASES_REDUCTION return reduction(op, index);
    }
    return unknown();
  }

  Fact binary(const ir::Op& op) {
    const Fact a = of(op.inputs[0]), b = of(op.inputs[1]);
    if (a.dep == Dep::Unknown || b.dep == Dep::Unknown) return unknown();
    Fact f;
    switch (op.kind) {
      case ir::OpKind::Add:
        f.positive = (a.positive && b.nonNegative) || (a.nonNegative && b.positive);
        f.nonNegative = a.nonNegative && b.nonNegative;
        f.nonZero = f.positive;
        break;
      case ir::OpKind::Sub: break;
      case ir::OpKind::Mul:
      case ir::OpKind::Div:
        f.positive = a.positive && b.positive;
        f.nonNegative = f.positive || (op.kind == ir::OpKind::Mul && a.nonNegative && b.nonNegative);
        f.nonZero = a.nonZero && b.nonZero;
        break;
      case ir::OpKind::Maximum:
      case ir::OpKind::Minimum:
        if (a.dep != Dep::None || b.dep != Dep::None) return unknown();
        return Fact{};
      MIRAGE_CASES_NOT_BINARY return unknown();
    }
    const bool ea = a.dep == Dep::Elementwise, eb = b.dep == Dep::Elementwise;
    if (ea && eb) return unknown();  // two functions of X[i] may cancel
    if (ea || eb) {
      // X[i] + s, s - X[i], X[i] · c, c / X[i], ...: invertible in X[i]
      // where the other operand is generically nonzero.
      const Fact& other = ea ? b : a;
      const bool invertible = op.kind == ir::OpKind::Add || op.kind == ir::OpKind::Sub || other.nonZero;
      if (!invertible) return unknown();
      f.dep = Dep::Elementwise;
      return f;
    }
    f.dep = (a.dep == Dep::Stats || b.dep == Dep::Stats) ? Dep::Stats : Dep::None;
    return f;
  }

  Fact unary(const ir::Op& op) {
    const Fact a = of(op.inputs[0]);
    if (a.dep == Dep::Unknown) return unknown();
    Fact f;
    f.dep = a.dep;
    switch (op.kind) {
      // Analytic and not constant on any interval: ∂F/∂X[i] stays
      // generically nonzero.
      case ir::OpKind::Exp: f.positive = f.nonNegative = f.nonZero = true; break;
      case ir::OpKind::Square:
        f.nonNegative = true;
        f.positive = f.nonZero = a.nonZero;
        break;
      case ir::OpKind::Sqrt:
        f.nonNegative = true;
        f.positive = f.nonZero = a.positive;
        break;
      case ir::OpKind::Rsqrt: f.positive = f.nonNegative = f.nonZero = true; break;  // defined for positive arguments only
      case ir::OpKind::Sigmoid: f.positive = f.nonNegative = f.nonZero = true; break;
      case ir::OpKind::Neg:
      case ir::OpKind::Tanh: f.nonZero = a.nonZero; break;
      case ir::OpKind::Silu:
      case ir::OpKind::Gelu:
      case ir::OpKind::Log: break;
      // Constant on an interval: a function of X may lose X there.
      case ir::OpKind::Relu:
      case ir::OpKind::Abs:
        if (a.dep != Dep::None) return unknown();
        f.nonNegative = true;
        break;
      MIRAGE_CASES_NOT_UNARY return unknown();
    }
    return f;
  }

  Fact reduction(const ir::Op& op, int index) {
    const Fact a = of(op.inputs[0]);
    if (a.dep == Dep::Unknown) return unknown();
    if (a.dep == Dep::None) {
      Fact f;
      if (op.kind != ir::OpKind::ReduceMax) {
        f.positive = f.nonZero = a.positive;
        f.nonNegative = a.nonNegative;
      }
      return f;
    }
    if (op.kind == ir::OpKind::ReduceMax) return unknown();
    // A statistic: each of its values is counted, even those of a
    // reduction of statistics (which add none).
    reductions_.insert(index);
    Fact f;
    f.dep = Dep::Stats;
    f.positive = f.nonZero = a.positive || (a.nonNegative && a.dep == Dep::Elementwise);
    f.nonNegative = a.nonNegative;
    return f;
  }

  const ir::Graph& g_;
  ir::ValueId source_;
  std::vector<int> producer_;
  std::unordered_map<ir::ValueId, Fact> memo_;
  std::set<int> reductions_;  // of values that vary with X, in A's making
};

// The program inputs `v` depends on (a bit per input index).
uint64_t inputsOf(const ir::Graph& g, ir::ValueId v) {
  std::vector<uint64_t> deps(g.values.size(), 0);
  for (size_t i = 0; i < g.inputs.size() && i < 64; ++i) deps[static_cast<size_t>(g.inputs[i])] = uint64_t{1} << i;
  for (const ir::Op& op : g.ops)
    for (ir::ValueId r : op.results)
      for (ir::ValueId x : op.inputs) deps[static_cast<size_t>(r)] |= deps[static_cast<size_t>(x)];
  return deps[static_cast<size_t>(v)];
}

int inputIndex(const ir::Graph& g, ir::ValueId v) {
  auto it = std::find(g.inputs.begin(), g.inputs.end(), v);
  return it == g.inputs.end() ? -1 : static_cast<int>(it - g.inputs.begin());
}

}  // namespace

std::vector<OperandFlow> findOperandFlows(const ir::Graph& program) {
  std::vector<OperandFlow> flows;
  if (program.inputs.size() > 63) return flows;
  for (const ir::Op& op : program.ops) {
    if (op.kind != ir::OpKind::Matmul || op.inputs.size() != 2 || op.results.size() != 1) continue;
    if (std::find(program.outputs.begin(), program.outputs.end(), op.results[0]) == program.outputs.end()) continue;
    for (int side = 0; side < 2; ++side) {
      const ir::ValueId a = op.inputs[static_cast<size_t>(side)], b = op.inputs[static_cast<size_t>(1 - side)];
      const int partner = inputIndex(program, b);
      if (partner < 0) continue;
      const uint64_t sources = inputsOf(program, a);
      // A must not read B (then B's variation would move A too); each
      // input A reads is tried as the source X, the others held fixed.
      if (sources & (uint64_t{1} << partner)) continue;
      for (uint64_t s = sources; s != 0; s &= s - 1) {
        const int source = std::countr_zero(s);
        Analysis analysis(program, program.inputs[static_cast<size_t>(source)]);
        const std::optional<double> share = analysis.shareOf(a);
        if (share) flows.push_back({partner, source, *share});
      }
    }
  }
  return flows;
}

}  // namespace mirage::search
