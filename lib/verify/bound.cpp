// Degree analysis for the error bound (see bound.h). A value is a rational
// function num/den of the random field elements (inputs, and the fresh
// values that exp and the random functions introduce); we bound deg(num) and
// deg(den) with the usual rules, conservatively: sums of fractions are put
// over the product of their denominators, except where all the terms share
// one denominator polynomial (`shared`, below), as softmax's p_j = e_j / s
// do in Σ_j p_j v_j, or rms_norm's x_k / r in Σ_k (x_k / r) w_k.
#include "bound.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "mirage/verify/field.h"

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::ValueId;

struct Deg {
  double n = 0;  // numerator degree
  double d = 0;  // denominator degree
  // Bit k: every element along dim k of the value has the same denominator
  // polynomial (in the representation these rules build), so a sum along
  // dim k keeps it: Σ_j n_j / D = (Σ_j n_j) / D. Inside a kernel body it is
  // about one block and iteration, the scope of the body's sums.
  uint32_t shared = ~0u;
  // Inside a kernel body: the grid dims (bits x, y, z) whose block index the
  // denominator polynomial, and the value, may depend on. A result saved
  // along a grid-split dim keeps `shared` there only when its denominator
  // does not depend on that grid dim (every block's chunk has the same one).
  uint32_t denGrid = 0;
  uint32_t valGrid = 0;
};

using Mask = uint32_t;
Mask bit(size_t k) { return Mask{1} << k; }

// The dims of extent 1: trivially shared.
Mask unitDims(const ir::Shape& s) {
  Mask m = 0;
  for (size_t k = 0; k < s.size(); ++k)
    if (s[k] == 1) m |= bit(k);
  return m;
}

// Whether output dim j (of shape `out`) sees one operand element (shape
// `in`, aligned to the right as in broadcasting) all along it.
bool broadcastAlong(const ir::Shape& in, const ir::Shape& out, size_t j) {
  size_t lead = out.size() - in.size();
  if (j < lead) return true;
  return in[j - lead] == 1 && out[j] != 1;
}

// Whether the operand's denominator is the same all along output dim j.
bool sharedAlong(const Deg& x, const ir::Shape& in, const ir::Shape& out, size_t j) {
  size_t lead = out.size() - in.size();
  return broadcastAlong(in, out, j) || ((x.shared >> (j - lead)) & 1u) != 0;
}

// Sum of `terms` values of degree x each.
Deg sumOf(Deg x, double terms) { return {x.n + (terms - 1) * x.d, terms * x.d}; }

// Bits of the numerator plus the denominator of a decimal literal: every
// digit and every power of ten in the exponent is log2(10) bits. A literal
// without text is a double: 53 bits of mantissa and up to 1074 of exponent.
double literalBits(const std::string& text) {
  if (text.empty()) return 53 + 1074;
  double digits = 0, exponent = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) digits += std::isdigit(static_cast<unsigned char>(text[i])) ? 1 : 0;
  if (i < text.size()) exponent = std::fabs(std::atof(text.c_str() + i + 1));
  return (2 * digits + exponent + 1) * std::log2(10.0);
}

struct Analyzer {
  BoundStats stats;
  std::vector<Deg>* current = nullptr;

  // Fills out.denGrid and out.valGrid from the operands (kernel bodies; at
  // program level every operand has none, so neither has the result).
  void gridDependence(const ir::Graph& g, const ir::Op& op, Deg& out) const {
    Mask den = 0, val = 0;
    for (ValueId in : op.inputs) {
      const Deg& x = (*current)[static_cast<size_t>(in)];
      den |= x.denGrid;
      val |= x.valGrid | x.denGrid;
    }
    switch (op.kind) {
      case OpKind::Input:
      case OpKind::Const: out.denGrid = out.valGrid = 0; return;
      case OpKind::Tile: {
        // Block i views chunk i of each mapped dim: its values differ, its
        // denominators only where the argument's are not shared along it.
        const Deg& x = (*current)[static_cast<size_t>(op.inputs[0])];
        for (size_t gd = 0; gd < 3; ++gd) {
          if (op.imap[gd] < 0) continue;
          val |= bit(gd);
          if (!((x.shared >> op.imap[gd]) & 1u)) den |= bit(gd);
        }
        break;
      }
      case OpKind::Exp:
      case OpKind::Sqrt:
      case OpKind::Silu:
      case OpKind::Gelu:
      case OpKind::Relu:
      case OpKind::Abs:
      case OpKind::Tanh:
      case OpKind::Sigmoid:
      case OpKind::Log:
      case OpKind::Maximum:
      case OpKind::Minimum:
      case OpKind::ReduceMax:
      case OpKind::Scan: den = 0; break;  // fresh values: denominator 1
      case OpKind::Rsqrt: den = val; break;  // the fresh value is the denominator
      case OpKind::Div: {
        const Deg& b = (*current)[static_cast<size_t>(op.inputs[1])];
        den |= b.valGrid | b.denGrid;  // the divisor's numerator joins the denominator
        break;
      }
      case OpKind::Accum:
        if (!ir::isRescaledAccum(op) && op.accumOp == ir::AccumOp::Max) den = 0;
        break;
      case OpKind::Matmul:
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Square:
      case OpKind::Neg:
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::Transpose:
      MIRAGE_CASES_PROGRAM_LAYOUT  // moves: the operands' denominators
      case OpKind::Kernel:
      case OpKind::Save: break;  // products and sums of the operands' denominators
      MIRAGE_CASES_SHORTHAND throw std::logic_error("boundStats: unexpanded shorthand");
    }
    out.denGrid = den;
    out.valGrid = val;
  }

  // The shared mask of an element-wise result: a dim is shared when both
  // operands' denominators are along it; a quotient's denominator also holds
  // the divisor's numerator, shared only where the divisor is broadcast.
  Mask elementwiseShared(const ir::Graph& g, const ir::Op& op, bool quotient) const {
    const ir::Shape& os = g.value(op.results[0]).shape;
    const ir::Shape& as = g.value(op.inputs[0]).shape;
    const ir::Shape& bs = g.value(op.inputs[1]).shape;
    const Deg& a = (*current)[static_cast<size_t>(op.inputs[0])];
    const Deg& b = (*current)[static_cast<size_t>(op.inputs[1])];
    Mask m = unitDims(os);
    for (size_t j = 0; j < os.size(); ++j) {
      bool ok = sharedAlong(a, as, os, j) && (quotient ? broadcastAlong(bs, os, j) : sharedAlong(b, bs, os, j));
      if (ok) m |= bit(j);
    }
    return m;
  }

  // `scale` = how many times each op of g runs per program run (blocks, and
  // iterations for loop-phase body ops are multiplied in below).
  std::vector<Deg> run(const ir::Graph& g, const std::vector<Deg>& args, double blocks,
                       double forloop) {
    std::vector<Deg> deg(g.values.size());
    std::vector<Deg>* outer = current;
    current = &deg;
    std::vector<char> after(g.values.size(), 0);
    auto at = [&](ValueId v) -> Deg& { return deg[static_cast<size_t>(v)]; };
    auto count = [&](ValueId v) { return static_cast<double>(ir::numElements(g.value(v).shape)); };
    for (const ir::Op& op : g.ops) {
      bool isAfter = op.kind == OpKind::Accum;
      for (ValueId in : op.inputs) isAfter = isAfter || after[static_cast<size_t>(in)];
      for (ValueId r : op.results) after[static_cast<size_t>(r)] = isAfter;
      double times = blocks * (isAfter ? 1.0 : forloop);
      if (op.kind == OpKind::Accum) times = blocks * forloop;
      Deg out;
      switch (op.kind) {
        case OpKind::Input: {
          size_t k = 0;
          while (k < g.inputs.size() && g.inputs[k] != op.results[0]) ++k;
          out = args.empty() ? Deg{1, 0} : args.at(k);
          break;
        }
        case OpKind::Const:
          out = {0, 0};
          stats.literalBits = std::max(stats.literalBits, literalBits(op.scalarText));
          break;
        case OpKind::Add:
        case OpKind::Sub: {
          Deg a = at(op.inputs[0]), b = at(op.inputs[1]);
          out = {std::max(a.n + b.d, b.n + a.d), a.d + b.d, elementwiseShared(g, op, false)};
          break;
        }
        case OpKind::Mul: {
          Deg a = at(op.inputs[0]), b = at(op.inputs[1]);
          out = {a.n + b.n, a.d + b.d, elementwiseShared(g, op, false)};
          break;
        }
        case OpKind::Div: {
          Deg a = at(op.inputs[0]), b = at(op.inputs[1]);
          out = {a.n + b.d, a.d + b.n, elementwiseShared(g, op, true)};
          stats.divisorElements += times * count(op.inputs[1]);
          break;
        }
        case OpKind::Matmul: {
          Deg a = at(op.inputs[0]), b = at(op.inputs[1]);
          const ir::Shape& as = g.value(op.inputs[0]).shape;
          const ir::Shape& bs = g.value(op.inputs[1]).shape;
          const ir::Shape& os = g.value(op.results[0]).shape;
          size_t ra = as.size(), rb = bs.size(), r = os.size();
          // The term a[m, k]·b[k, n] has denominator da[m, k]·db[k, n]: one
          // polynomial for every k when both are shared along K.
          bool overK = (((a.shared >> (ra - 1)) & 1u) || as[ra - 1] == 1) &&
                       (((b.shared >> (rb - 2)) & 1u) || bs[rb - 2] == 1);
          Deg term{a.n + b.n, a.d + b.d};
          out = overK ? term : sumOf(term, static_cast<double>(as.back()));
          Mask m = unitDims(os);
          for (size_t j = 0; j + 2 < r; ++j) {
            ir::Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2), ob(os.begin(), os.end() - 2);
            if (sharedAlong(a, ab, ob, j) && sharedAlong(b, bb, ob, j)) m |= bit(j);
          }
          if ((a.shared >> (ra - 2)) & 1u) m |= bit(r - 2);  // along M: a's rows; b has no M
          if ((b.shared >> (rb - 1)) & 1u) m |= bit(r - 1);  // along N: b's columns
          out.shared = m;
          break;
        }
        case OpKind::ReduceSum:
        case OpKind::ReduceMean: {
          Deg x = at(op.inputs[0]);
          const ir::Shape& s = g.value(op.inputs[0]).shape;
          double terms = static_cast<double>(s[static_cast<size_t>(op.dim)] / op.size);
          bool common = ((x.shared >> op.dim) & 1u) != 0;
          out = common ? Deg{x.n, x.d} : sumOf(x, terms);
          out.shared = x.shared | unitDims(g.value(op.results[0]).shape);
          break;
        }
        case OpKind::Square:
          out = {2 * at(op.inputs[0]).n, 2 * at(op.inputs[0]).d, at(op.inputs[0]).shared};
          break;
        case OpKind::Neg: out = at(op.inputs[0]); break;  // exact, the same degree
        case OpKind::Exp:
        case OpKind::Sqrt:
        case OpKind::Silu:
        case OpKind::Gelu:
        case OpKind::Tanh:
        case OpKind::Sigmoid:
        case OpKind::Log:
          stats.applications += times * count(op.inputs[0]);
          out = {1, 0};
          break;
        // A multiset hash per operand element and a random function of it.
        case OpKind::Relu:
        case OpKind::Abs:
          stats.applications += times * 2 * count(op.results[0]);
          out = {1, 0};
          break;
        case OpKind::Maximum:
        case OpKind::Minimum:
          stats.applications += times * (count(op.inputs[0]) + count(op.inputs[1]) + count(op.results[0]));
          out = {1, 0};
          break;
        case OpKind::Rsqrt:
          stats.applications += times * count(op.inputs[0]);
          stats.divisorElements += times * count(op.inputs[0]);
          out = {0, 1, unitDims(g.value(op.results[0]).shape)};  // one fresh denominator per element
          break;
        case OpKind::ReduceMax:
          stats.applications += times * (count(op.inputs[0]) + count(op.results[0]));
          out = {1, 0};
          break;
        case OpKind::Transpose: {
          out = at(op.inputs[0]);
          Mask m = out.shared, a = bit(static_cast<size_t>(op.dim)), b = bit(static_cast<size_t>(op.dim1));
          out.shared = (m & ~(a | b)) | ((m & a) ? b : 0) | ((m & b) ? a : 0);
          break;
        }
        case OpKind::Tile:
          out = at(op.inputs[0]);
          out.shared |= unitDims(g.value(op.results[0]).shape);
          break;
        // Layout ops move elements between dims: no dim keeps a shared
        // denominator for sure (0 claims nothing, which is sound).
        case OpKind::Reshape:
        case OpKind::Slice:
          out = at(op.inputs[0]);
          out.shared = 0;
          break;
        case OpKind::Concat:
          // Each element is one operand's element: the largest degrees bound it.
          out = at(op.inputs[0]);
          for (ValueId in : op.inputs) {
            out.n = std::max(out.n, at(in).n);
            out.d = std::max(out.d, at(in).d);
            out.denGrid |= at(in).denGrid;
          }
          out.shared = 0;
          break;
        case OpKind::Scan:
          // A multiset hash per element and iteration, and a max value.
          stats.applications += times * (count(op.inputs[0]) + count(op.results[0]));
          out = {1, 0};
          break;
        case OpKind::Accum:
          if (ir::isRescaledAccum(op)) {
            // sum_i x_i exp(m_i) exp(-M): two exp factors per term.
            Deg x = at(op.inputs[0]);
            stats.applications += times * count(op.inputs[1]) + blocks * count(op.inputs[1]);
            out = sumOf({x.n + 2, x.d}, forloop);
            out.shared = x.shared;
          } else if (op.accumOp == ir::AccumOp::Max) {
            stats.applications += times * count(op.inputs[0]) + blocks * count(op.results[0]);
            out = {1, 0};
          } else {
            // Σ_i x_i over the iterations: the product of the iterations'
            // denominators, shared along a dim when each is.
            out = sumOf(at(op.inputs[0]), forloop);
            out.shared = at(op.inputs[0]).shared;
          }
          break;
        case OpKind::Save: break;
        MIRAGE_CASES_SHORTHAND throw std::logic_error("boundStats: unexpanded shorthand");
        case OpKind::Kernel: {
          std::vector<Deg> a;
          for (ValueId in : op.inputs) a.push_back(at(in));
          const ir::KernelConfig& k = op.config;
          std::vector<Deg> body =
              run(*op.body, a, static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]),
                  static_cast<double>(k.forloop));
          current = &deg;
          for (const ir::Op& s : op.body->ops)
            if (s.kind == OpKind::Save) {
              ValueId res = op.results[static_cast<size_t>(s.resultIndex)];
              Deg saved = body[static_cast<size_t>(s.inputs[0])];
              // Along a dim the grid splits, different blocks wrote the
              // chunks: nothing says their denominators agree.
              for (size_t gd = 0; gd < 3; ++gd)
                if (s.omap[gd] >= 0 && ((saved.denGrid >> gd) & 1u))
                  saved.shared &= ~bit(static_cast<size_t>(s.omap[gd]));
              saved.shared |= unitDims(g.value(res).shape);
              saved.denGrid = saved.valGrid = 0;
              at(res) = saved;
            }
          continue;
        }
      }
      gridDependence(g, op, out);
      for (ValueId r : op.results) {
        at(r) = out;
        stats.maxDegree = std::max(stats.maxDegree, out.n + out.d);
      }
    }
    current = outer;
    return deg;
  }
};

}  // namespace

BoundStats boundStats(const ir::Graph& g) {
  Analyzer a;
  std::vector<Deg> deg = a.run(g, {}, 1, 1);
  for (ValueId o : g.outputs) {
    Deg d = deg[static_cast<size_t>(o)];
    a.stats.outputDegree = std::max(a.stats.outputDegree, d.n + d.d);
  }
  a.stats.maxDegree = std::max(a.stats.maxDegree, a.stats.outputDegree);
  return a.stats;
}

double trialErrorBound(const BoundStats& a, const BoundStats& b, double matchPairs) {
  // Every trial's Q exceeds 2^60 and P > Q, so 2^-60 bounds both fields'
  // Schwartz-Zippel terms.
  const double invQ = std::ldexp(1.0, -60);
  double dOut = std::max(a.outputDegree, b.outputDegree);
  double dMax = std::max(a.maxDegree, b.maxDegree);
  double apps = a.applications + b.applications;
  // A domain condition's fingerprint equal to one of the other program's
  // facts while the two differ formally: a nonzero difference of degree at
  // most 2 * dMax vanishing, for each pair compared.
  double eps = (2 * dOut + 2 * apps * dMax + 2 * matchPairs * dMax) * invQ;
  // The moduli are drawn among the ~2^49.6 safe prime pairs: a nonzero
  // integer coefficient of the difference (at most dMax products of literals
  // and counts, each below 2^(literalBits + 64)) is a multiple of the drawn P
  // or Q with probability at most (its bits / 60) / 2^49, for each modulus.
  double coefficientBits = dMax * (std::max(a.literalBits, b.literalBits) + 64);
  eps += 2 * (coefficientBits / 60) * std::ldexp(1.0, -49);
  // Resampling on a zero divisor conditions the trial on "no zero divisor",
  // which can raise any event's probability by at most 1/(1 - z).
  double z = (a.divisorElements + b.divisorElements) * dMax * invQ;
  if (z >= 0.5) return 1.0;
  return std::min(1.0, eps / (1 - z));
}

double errorBound(const BoundStats& a, const BoundStats& b, int trials, double matchPairs) {
  return std::pow(trialErrorBound(a, b, matchPairs), std::max(1, trials));
}

int trialsNeeded(const BoundStats& a, const BoundStats& b, double matchPairs) {
  double eps = trialErrorBound(a, b, matchPairs);
  if (eps >= 1.0) return 0;
  if (eps <= 0.0) return 2;
  int t = std::max(2, static_cast<int>(std::ceil(std::log(kMaxErrorBound) / std::log(eps))));
  // Rounding: make sure the bound printed for t trials is within the limit.
  while (t <= kMaxTrials && errorBound(a, b, t, matchPairs) > kMaxErrorBound) ++t;
  return t <= kMaxTrials ? t : 0;
}

int defaultTrials(const BoundStats& a, const BoundStats& b, double matchPairs) {
  int t = trialsNeeded(a, b, matchPairs);
  return t > 0 ? t : 2;
}

}  // namespace mirage::verify
