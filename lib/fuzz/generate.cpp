// The program generator (generate.h). A program starts from a motif, the
// shapes fusion cares about (an MLP, RMSNorm before a linear layer, softmax
// attention, a matmul chain, RoPE before attention, or nothing), then grows
// by random operations on the values made so far, and ends with one or two
// outputs. The layout operators (reshape, slice, concat) are drawn like the
// others, and a layout result is often read at once by an element-wise
// operator, a reduction or a matmul, the places where the search has to cut
// or fuse across it. Values that feed a division, sqrt or rsqrt are made
// positive first (exp, or square plus a constant), so the input program
// itself has no poles on random inputs and a difference found later is the
// pipeline's, not the program's.
#include "mirage/fuzz/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "rewrite.h"

namespace mirage::fuzz {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;

uint64_t Rng::next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t Rng::below(int64_t n) {
  if (n <= 1) return 0;
  return static_cast<int64_t>(next() % static_cast<uint64_t>(n));
}

bool Rng::chance(double p) { return uniform() < p; }

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

uint64_t caseSeed(uint64_t runSeed, uint64_t index) {
  Rng r(runSeed * 0x2545f4914f6cdd1dULL + index);
  r.next();
  return r.next();
}

namespace {

// How the generator uses an operator kind: read from the operator table's
// category, so a new element-wise or reduction row is fuzzed without an edit
// here (its operands are made positive where its definedness row asks).
enum class OpClass { NotDrawn, Unary, Binary, Reduction, Matmul, Transpose, Reshape, Slice, Concat };

// One case per program layout row, so that a new one does not build until
// the generator knows how to draw its operands.
OpClass layoutClass(OpKind k) {
  switch (k) {
    case OpKind::Reshape: return OpClass::Reshape;
    case OpKind::Slice: return OpClass::Slice;
    case OpKind::Concat: return OpClass::Concat;
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_CONTRACTION
    MIRAGE_CASES_BINARY
    MIRAGE_CASES_UNARY
    MIRAGE_CASES_REDUCTION
    MIRAGE_CASES_LAYOUT
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND return OpClass::NotDrawn;
  }
  return OpClass::NotDrawn;
}

OpClass classifyKind(OpKind k) {
  switch (ir::opCategory(k)) {
    case ir::OpCategory::Leaf:
    case ir::OpCategory::ProgramLevel:  // the search's output, never in an input program
    case ir::OpCategory::BodyLevel:     // block level only
    case ir::OpCategory::Shorthand: return OpClass::NotDrawn;  // drawn expanded (rmsNorm, softmax)
    case ir::OpCategory::Contraction: return OpClass::Matmul;
    case ir::OpCategory::ElementwiseBinary: return OpClass::Binary;
    case ir::OpCategory::ElementwiseUnary: return OpClass::Unary;
    case ir::OpCategory::Reduction: return OpClass::Reduction;
    case ir::OpCategory::Layout: return k == OpKind::Transpose ? OpClass::Transpose : OpClass::NotDrawn;
    case ir::OpCategory::ProgramLayout: return layoutClass(k);
  }
  return OpClass::NotDrawn;
}

// Whether operand i of `kind` must be positive for the program to be defined
// (the generator keeps its programs defined on positive inputs).
bool needsPositive(OpKind kind, size_t i) {
  switch (ir::opInfo(kind).definedness) {
    case ir::Definedness::Always: return false;
    case ir::Definedness::DivisorNonZero: return i == 1;
    case ir::Definedness::ArgumentNonNegative:
    case ir::Definedness::ArgumentPositive: return i == 0;
  }
  return false;
}

class Generator {
 public:
  Generator(uint64_t seed, const GenOptions& options) : rng_(seed), opt_(options) {}

  ir::Graph run() {
    static constexpr ir::DType kDTypes[] = {ir::DType::F16, ir::DType::BF16, ir::DType::F32};
    g_.dtype = kDTypes[rng_.below(3)];
    static const char* const kMotifs[] = {"mlp", "rmsnorm", "attention", "chain", "plain", "rope"};
    int motif = static_cast<int>(rng_.below(6));
    g_.name = fmt::format("fuzz_{}", kMotifs[motif]);
    switch (motif) {
      case 0: mlp(); break;
      case 1: rmsNormLinear(); break;
      case 2: attention(); break;
      case 3: chain(); break;
      case 5: ropeAttention(); break;
      default: plain(); break;
    }
    motifEnd_ = pool_.back();
    int extra = static_cast<int>(rng_.below(opt_.maxRandomOps + 1));
    if (motif == 4) extra = std::max(extra, 2);
    for (int i = 0; i < extra;) i += std::max(1, randomOp());
    return finish();
  }

 private:
  // ---- building blocks ---------------------------------------------------
  const Shape& shapeOf(ValueId v) const { return g_.value(v).shape; }
  int rankOf(ValueId v) const { return static_cast<int>(shapeOf(v).size()); }

  ValueId input(Shape shape) {
    ValueId v = ir::kNoValue;
    std::string name = fmt::format("x{}", inputs_++);
    if (ir::Error e = ir::addInput(g_, name, shape, &v); !e.empty())
      throw std::logic_error("generator: " + e);
    note(v, false);
    return v;
  }

  ValueId constant(double value) { return ir::addConst(g_, ir::formatNumber(value)); }

  ValueId op(OpKind kind, std::vector<ValueId> ins, int dim = 0, int dim1 = 0, int64_t size = 1) {
    ir::Op o;
    o.kind = kind;
    o.inputs = std::move(ins);
    o.dim = dim;
    o.dim1 = dim1;
    o.size = size;
    return build(std::move(o));
  }
  ValueId reshape(ValueId a, Shape shape) {
    ir::Op o;
    o.kind = OpKind::Reshape;
    o.inputs = {a};
    o.shapeArg = std::move(shape);
    return build(std::move(o));
  }
  ValueId slice(ValueId a, int dim, int64_t start, int64_t end) {
    ir::Op o;
    o.kind = OpKind::Slice;
    o.inputs = {a};
    o.dim = dim;
    o.start = start;
    o.end = end;
    return build(std::move(o));
  }
  // RoPE's rotate_half along `dim` split at h: concat(neg(x[h:]), x[:h]),
  // or without the neg (a rotation, the plain half swap).
  ValueId rotate(ValueId x, int dim, int64_t h, bool negate) {
    int64_t n = shapeOf(x)[static_cast<size_t>(ir::normalizeDim(dim, rankOf(x)))];
    ValueId hi = slice(x, dim, h, n);
    if (negate) hi = op(OpKind::Neg, {hi});
    return op(OpKind::Concat, {hi, slice(x, dim, 0, h)}, dim);
  }

  ValueId build(ir::Op o) {
    OpKind kind = o.kind;
    ValueId v = ir::kNoValue;
    if (ir::Error e = ir::addOp(g_, o, nullptr, &v); !e.empty())
      throw std::logic_error(fmt::format("generator: {}: {}", ir::opName(kind), e));
    bool pos = false;
    auto p = [&](size_t i) { return i < o.inputs.size() && isPositive(o.inputs[i]); };
    switch (classifyKind(kind)) {
      case OpClass::Unary: pos = kind == OpKind::Exp || ((kind == OpKind::Sqrt || kind == OpKind::Rsqrt) && p(0)); break;
      case OpClass::Binary: pos = kind != OpKind::Sub && p(0) && p(1); break;
      case OpClass::Reduction: pos = p(0); break;
      case OpClass::Transpose:
      case OpClass::Reshape:
      case OpClass::Slice: pos = p(0); break;
      case OpClass::Concat:
        pos = std::all_of(o.inputs.begin(), o.inputs.end(), [&](ValueId in) { return isPositive(in); });
        break;
      case OpClass::Matmul:
      case OpClass::NotDrawn: break;
    }
    note(v, pos);
    return v;
  }

  void note(ValueId v, bool positive) {
    if (positive_.size() <= static_cast<size_t>(v)) positive_.resize(static_cast<size_t>(v) + 1, 0);
    positive_[static_cast<size_t>(v)] = positive;
    if (rankOf(v) > 0) pool_.push_back(v);
  }
  bool isPositive(ValueId v) const {
    if (g_.producer(v).kind == OpKind::Const) return g_.producer(v).scalar > 0;
    return static_cast<size_t>(v) < positive_.size() && positive_[static_cast<size_t>(v)];
  }

  // A value that is positive and not tiny on inputs of moderate size.
  ValueId positive(ValueId v) {
    if (isPositive(v)) return v;
    if (g_.producer(v).kind == OpKind::Const) return constant(2);
    if (rng_.chance(0.5)) return op(OpKind::Exp, {v});
    static constexpr double kOffsets[] = {1, 0.5, 0.01};
    ValueId sq = op(OpKind::Square, {v});
    ValueId r = op(OpKind::Add, {sq, constant(kOffsets[rng_.below(3)])});
    positive_[static_cast<size_t>(r)] = 1;
    return r;
  }

  int64_t extent(bool allowOne = true) {
    static constexpr int64_t kCommon[] = {4, 8, 16, 32, 64};
    static constexpr int64_t kOdd[] = {1, 2, 3, 5, 12, 24, 48};
    int64_t e = rng_.chance(0.75) ? kCommon[rng_.below(5)] : kOdd[rng_.below(7)];
    if (!allowOne && e == 1) e = 2;
    return e;
  }
  // Halves the largest extents until the shape holds at most maxElements.
  Shape fit(Shape s) const {
    while (ir::numElements(s) > opt_.maxElements) {
      auto it = std::max_element(s.begin(), s.end());
      *it = std::max<int64_t>(1, *it / 2);
    }
    return s;
  }
  // fixed + {want}, with want lowered so the shape holds at most
  // maxElements: for shapes whose other extents must match a partner.
  Shape capLast(Shape fixed, int64_t want) const {
    int64_t rest = std::max<int64_t>(1, ir::numElements(fixed));
    fixed.push_back(std::max<int64_t>(1, std::min(want, opt_.maxElements / rest)));
    return fixed;
  }
  Shape batchDims() {
    Shape b;
    int n = static_cast<int>(rng_.below(3));  // 0, 1 or 2 batch dims: ranks 2 to 4
    static constexpr int64_t kBatch[] = {1, 2, 3, 4};
    for (int i = 0; i < n; ++i) b.push_back(kBatch[rng_.below(4)]);
    return b;
  }
  static Shape concat(Shape a, const Shape& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }

  ValueId activation(ValueId v) {
    static constexpr OpKind kActs[] = {OpKind::Silu, OpKind::Gelu, OpKind::Relu};
    return op(kActs[rng_.below(3)], {v});
  }

  // rms_norm(x, dim) as the parser expands it, with or without eps.
  ValueId rmsNorm(ValueId x, int dim) {
    ValueId m = op(OpKind::ReduceMean, {op(OpKind::Square, {x})}, dim);
    if (rng_.chance(0.5)) m = op(OpKind::Add, {m, constant(1e-5)});
    ValueId s = op(OpKind::Sqrt, {m});
    return op(OpKind::Div, {x, s});
  }

  // softmax(x, dim) as the parser expands it; rarely without the max guard
  // (a program that is itself unsafe, as users write them).
  ValueId softmax(ValueId x, int dim) {
    ValueId d = x;
    if (!rng_.chance(0.1)) d = op(OpKind::Sub, {x, op(OpKind::ReduceMax, {x}, dim)});
    ValueId e = op(OpKind::Exp, {d});
    return op(OpKind::Div, {e, op(OpKind::ReduceSum, {e}, dim)});
  }

  // ---- motifs --------------------------------------------------------------
  void mlp() {
    Shape batch = rng_.chance(0.3) ? Shape{extent()} : Shape{};
    int64_t m = extent(), k = extent(false), n = extent(false);
    ValueId x = input(fit(concat(batch, {m, k})));
    if (rng_.chance(0.15)) {
      // The activations arrive as two halves joined along the contracted dim.
      int r = rankOf(x);
      x = op(OpKind::Concat, {x, input(shapeOf(x))}, r - 1);
      if (shapeOf(x).back() > opt_.maxInner) x = slice(x, r - 1, 0, opt_.maxInner);
    }
    k = shapeOf(x).back();
    ValueId w1;
    if (rng_.chance(0.2)) {
      // A fused weight [k, 2n] (gate and up side by side) sliced in half.
      Shape fused = capLast({k}, 2 * n);
      n = std::max<int64_t>(1, fused.back() / 2);
      fused.back() = 2 * n;
      int64_t at = rng_.chance(0.5) ? 0 : n;
      w1 = slice(input(fused), 1, at, at + n);
    } else {
      w1 = input(capLast({k}, n));
    }
    ValueId h = op(OpKind::Matmul, {x, w1});
    n = shapeOf(h).back();
    ValueId a = activation(h);
    if (rng_.chance(0.5)) a = op(OpKind::Mul, {a, op(OpKind::Matmul, {x, input({k, n})})});
    if (rng_.chance(0.7)) op(OpKind::Matmul, {a, input(capLast({n}, extent()))});
  }

  void rmsNormLinear() {
    Shape batch = batchDims();
    if (batch.size() > 1) batch.pop_back();
    ValueId x = input(fit(concat(batch, {extent(), extent(false)})));
    int64_t k = shapeOf(x).back();
    ValueId y = rmsNorm(x, rankOf(x) - 1);
    if (rng_.chance(0.6)) y = op(OpKind::Mul, {y, input({k})});
    if (rng_.chance(0.8)) op(OpKind::Matmul, {y, input(capLast({k}, extent()))});
  }

  void attention() {
    Shape batch = batchDims();
    if (batch.empty()) batch.push_back(extent() > 8 ? 2 : 1);
    int64_t m = extent(), n = extent(false), d = extent(false);
    ValueId q = input(fit(concat(batch, {m, d})));
    d = shapeOf(q).back();
    m = shapeOf(q)[shapeOf(q).size() - 2];
    int r = static_cast<int>(batch.size()) + 2;
    ValueId kt;
    if (rng_.chance(0.5)) {
      Shape kShape = capLast(concat(batch, {d}), n);
      std::swap(kShape[kShape.size() - 1], kShape[kShape.size() - 2]);
      kt = op(OpKind::Transpose, {input(kShape)}, r - 2, r - 1);
    } else {
      kt = input(capLast(concat(batch, {d}), n));
    }
    n = shapeOf(kt).back();
    ValueId s = op(OpKind::Matmul, {q, kt});
    if (rng_.chance(0.8)) s = op(OpKind::Mul, {s, constant(rng_.chance(0.5) ? 0.125 : 0.25)});
    ValueId p = softmax(s, r - 1);
    op(OpKind::Matmul, {p, input(capLast(concat(batch, {n}), extent()))});
  }

  // RoPE on Q and K, then softmax attention (small shapes): q·cos +
  // rotate_half(q)·sin with rotate_half(x) = concat(neg(x[..., d/2:]),
  // x[..., :d/2]). Q, K and V are inputs, slices of one fused projection,
  // or heads split out of [m, H·d] by reshape and transpose.
  void ropeAttention() {
    static constexpr int64_t kRows[] = {4, 8, 16};
    static constexpr int64_t kHead[] = {8, 16, 32, 64};
    int64_t m = kRows[rng_.below(3)], n = kRows[rng_.below(3)], d = kHead[rng_.below(4)];
    int64_t dv = extent(false);
    Shape batch;
    ValueId q, k, v;
    int variant = static_cast<int>(rng_.below(3));
    if (variant == 0) {
      for (int i = 0, nb = 1 + static_cast<int>(rng_.below(2)); i < nb; ++i) batch.push_back(1 + rng_.below(2));
      q = input(concat(batch, {m, d}));
      k = input(concat(batch, {n, d}));
      v = input(capLast(concat(batch, {n}), dv));
    } else if (variant == 1) {
      // One projection X·W with W = [Wq Wk Wv]; its result is sliced.
      batch.push_back(1 + rng_.below(2));
      n = m;
      int64_t e = kRows[rng_.below(3)];
      while (batch[0] * m * 3 * d > 2 * opt_.maxElements) d /= 2;
      ValueId qkv = op(OpKind::Matmul, {input({batch[0], m, e}), input({e, 3 * d})});
      q = slice(qkv, 2, 0, d);
      k = slice(qkv, spellDim(2, 3), d, 2 * d);
      v = slice(qkv, 2, 2 * d, 3 * d);
    } else {
      // Heads: [m, H·d] reshaped to [m, H, d] and transposed to [H, m, d].
      static constexpr int64_t kHeads[] = {1, 2, 4};
      int64_t h = kHeads[rng_.below(3)];
      while (h * std::max(m, n) * d > opt_.maxElements) d /= 2;
      batch.push_back(h);
      auto heads = [&](int64_t rows, int64_t width) {
        Shape t = {rows, h, width};
        if (rng_.chance(0.4)) t[static_cast<size_t>(rng_.below(3))] = -1;
        return op(OpKind::Transpose, {reshape(input({rows, h * width}), t)}, 0, 1);
      };
      q = heads(m, d);
      k = heads(n, d);
      v = heads(n, std::max<int64_t>(1, std::min(dv, opt_.maxElements / (h * n))));
    }
    int r = static_cast<int>(batch.size()) + 2;
    // cos and sin per position, broadcast over the batch; K shares Q's when
    // the lengths agree.
    ValueId cq = input({m, d}), sq = input({m, d});
    ValueId ck = cq, sk = sq;
    if (n != m || rng_.chance(0.3)) ck = input({n, d}), sk = input({n, d});
    bool negate = rng_.chance(0.85);
    auto rope = [&](ValueId x, ValueId c, ValueId sn) {
      ValueId rot = rotate(x, rng_.chance(0.8) ? r - 1 : -1, d / 2, negate);
      return op(OpKind::Add, {op(OpKind::Mul, {x, c}), op(OpKind::Mul, {rot, sn})});
    };
    ValueId qr = rope(q, cq, sq), kr = rope(k, ck, sk);
    ValueId s = op(OpKind::Matmul, {qr, op(OpKind::Transpose, {kr}, r - 2, r - 1)});
    if (rng_.chance(0.8)) s = op(OpKind::Mul, {s, constant(rng_.chance(0.5) ? 0.125 : 0.25)});
    op(OpKind::Matmul, {softmax(s, r - 1), v});
  }

  void chain() {
    int len = 2 + static_cast<int>(rng_.below(2));
    ValueId x = input(fit({extent(), extent(false)}));
    for (int i = 0; i < len; ++i) {
      int64_t k = shapeOf(x).back();
      x = op(OpKind::Matmul, {x, input(capLast({k}, extent(false)))});
      if (rng_.chance(0.3)) x = activation(x);
    }
  }

  void plain() {
    int rank = 1 + static_cast<int>(rng_.below(ir::kMaxRank));
    Shape s;
    for (int i = 0; i < rank; ++i) s.push_back(i + 2 >= rank ? extent() : 1 + rng_.below(3));
    input(fit(s));
  }

  // ---- random growth -------------------------------------------------------
  ValueId pickValue() {
    // Recent values more often: the program grows as a chain with side
    // branches rather than as a bag of unrelated operations.
    size_t n = pool_.size();
    if (rng_.chance(0.5)) return pool_[n - 1];
    if (n > 1 && rng_.chance(0.6)) return pool_[n - 1 - static_cast<size_t>(rng_.below(std::min<size_t>(n, 3)))];
    return pool_[static_cast<size_t>(rng_.below(static_cast<int64_t>(n)))];
  }

  // A second operand for a binary op on a: same shape, a broadcast of it, a
  // value of the pool that broadcasts, or a constant.
  ValueId partner(ValueId a) {
    const Shape& sa = shapeOf(a);
    int mode = static_cast<int>(rng_.below(4));
    // No new input larger than the bound: a big a gets a constant or a
    // pool value.
    if (ir::numElements(sa) > opt_.maxElements && mode < 2) mode = 2;
    if (mode == 0) {
      for (ValueId v : pool_)
        if (v != a && shapeOf(v) == sa && rng_.chance(0.5)) return v;
      return input(sa);
    }
    if (mode == 1) {
      Shape b = sa;
      size_t drop = rng_.below(static_cast<int64_t>(sa.size()));
      b.erase(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(drop));
      for (int64_t& e : b)
        if (rng_.chance(0.5)) e = 1;
      return input(b);
    }
    if (mode == 2) {
      for (ValueId v : pool_) {
        Shape out;
        if (v != a && shapeOf(v) != sa && ir::broadcastShapes(sa, shapeOf(v), out).empty() &&
            ir::numElements(out) <= opt_.maxElements && rng_.chance(0.5))
          return v;
      }
    }
    static constexpr double kConsts[] = {2, 0.5, -1.5, 3, 0.125};
    return constant(kConsts[rng_.below(5)]);
  }

  // One random operation on a recent value; returns how many of the
  // program's random-operation slots it used (a layout result read at once
  // by a consumer uses two).
  int randomOp() {
    static const std::vector<OpKind> kinds = programOperators();
    // The three layout rows would be a tenth of the draws among some thirty
    // operators; they are drawn more often, as they are what the search's
    // segmenting and layout rewrites and codegen's views have to handle.
    static const std::vector<OpKind> layouts = [] {
      std::vector<OpKind> l;
      for (OpKind k : kinds)
        if (ir::isLayoutOp(k)) l.push_back(k);
      return l;
    }();
    const std::vector<OpKind>& from = rng_.chance(0.15) ? layouts : kinds;
    OpKind kind = from[static_cast<size_t>(rng_.below(static_cast<int64_t>(from.size())))];
    return apply(kind, pickValue());
  }

  int apply(OpKind kind, ValueId a) {
    switch (classifyKind(kind)) {
      case OpClass::Unary:
        if (needsPositive(kind, 0)) a = positive(a);
        op(kind, {a});
        return 1;
      case OpClass::Binary: {
        ValueId b = partner(a);
        bool divisor = needsPositive(kind, 1);
        if (divisor) b = positive(b);
        if (!divisor && g_.producer(b).kind != OpKind::Const && rng_.chance(0.3)) std::swap(a, b);
        if (divisor && g_.producer(b).kind == OpKind::Const && rng_.chance(0.3)) std::swap(a, b), b = positive(b);
        op(kind, {a, b});
        return 1;
      }
      case OpClass::Reduction: {
        int rank = rankOf(a);
        int dim = static_cast<int>(rng_.below(rank));
        int64_t n = shapeOf(a)[static_cast<size_t>(dim)];
        int64_t size = 1;
        if (kind == OpKind::ReduceSum && rng_.chance(0.6)) {
          std::vector<int64_t> divisors;
          for (int64_t s = 2; s < n; ++s)
            if (n % s == 0) divisors.push_back(s);
          if (!divisors.empty()) size = divisors[static_cast<size_t>(rng_.below(static_cast<int64_t>(divisors.size())))];
        }
        op(kind, {a}, dim, 0, size);
        return 1;
      }
      case OpClass::Matmul: {
        if (rankOf(a) < 2) {
          std::vector<ValueId> matrices;
          for (ValueId v : pool_)
            if (rankOf(v) >= 2) matrices.push_back(v);
          a = matrices.empty() ? input({extent(), extent(false)})
                               : matrices[static_cast<size_t>(rng_.below(static_cast<int64_t>(matrices.size())))];
        }
        if (shapeOf(a).back() > opt_.maxInner) return 1;
        const Shape& sa = shapeOf(a);
        int64_t k = sa.back();
        for (ValueId v : pool_) {
          const Shape& sb = shapeOf(v);
          Shape out;
          if (v != a && sb.size() >= 2 && sb[sb.size() - 2] == k && rng_.chance(0.5) &&
              ir::numElements(Shape(sa.begin(), sa.end() - 1)) * sb.back() <= opt_.maxElements) {
            ir::Op probe;
            probe.kind = OpKind::Matmul;
            probe.inputs = {a, v};
            ir::Graph scratch = g_;
            ValueId r = ir::kNoValue;
            if (ir::addOp(scratch, probe, nullptr, &r).empty() && ir::numElements(scratch.value(r).shape) <= opt_.maxElements) {
              op(OpKind::Matmul, {a, v});
              return 1;
            }
          }
        }
        int64_t rows = ir::numElements(Shape(sa.begin(), sa.end() - 1));
        int64_t n = std::max<int64_t>(1, std::min({extent(), opt_.maxElements / std::max<int64_t>(1, rows),
                                                   opt_.maxElements / k}));
        op(OpKind::Matmul, {a, input({k, n})});
        return 1;
      }
      case OpClass::Transpose: {
        int rank = rankOf(a);
        if (rank < 2) return 1;
        int d0 = static_cast<int>(rng_.below(rank));
        int d1 = static_cast<int>(rng_.below(rank - 1));
        if (d1 >= d0) ++d1;
        op(kind, {a}, d0, d1);
        return 1;
      }
      case OpClass::Reshape: return 1 + consume(reshapeOp(a));
      case OpClass::Slice: return 1 + consume(sliceOp(a));
      case OpClass::Concat: return 1 + consume(concatOp(a));
      case OpClass::NotDrawn: return 0;
    }
    return 0;
  }

  // Often a layout result is read at once by an element-wise operator, a
  // reduction or a matmul (the consumers a layout rewrite or a segment cut
  // has to handle); returns the slots used.
  int consume(ValueId v) {
    if (v == ir::kNoValue || !rng_.chance(0.6)) return 0;
    static const std::vector<std::vector<OpKind>> consumers = [] {
      std::vector<std::vector<OpKind>> c(4);
      for (OpKind k : programOperators()) switch (classifyKind(k)) {
          case OpClass::Unary: c[0].push_back(k); break;
          case OpClass::Binary: c[1].push_back(k); break;
          case OpClass::Reduction: c[2].push_back(k); break;
          case OpClass::Matmul: c[3].push_back(k); break;
          case OpClass::Transpose:
          case OpClass::Reshape:
          case OpClass::Slice:
          case OpClass::Concat:
          case OpClass::NotDrawn: break;
        }
      return c;
    }();
    const std::vector<OpKind>& kinds = consumers[static_cast<size_t>(rng_.below(4))];
    return apply(kinds[static_cast<size_t>(rng_.below(static_cast<int64_t>(kinds.size())))], v);
  }

  // A dim as the text may spell it: sometimes counted from the end.
  int spellDim(int d, int rank) { return rng_.chance(0.2) ? d - rank : d; }

  // reshape: two neighbouring dims merged, one dim split in two (or a unit
  // dim inserted), or the elements regrouped into a new rank; sometimes
  // with one extent written as -1.
  ValueId reshapeOp(ValueId a) {
    const Shape s = shapeOf(a);
    int r = rankOf(a);
    Shape t;
    int mode = static_cast<int>(rng_.below(3));
    if (mode == 0 && r >= 2) {
      size_t i = static_cast<size_t>(rng_.below(r - 1));
      t = s;
      t[i] *= t[i + 1];
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    } else if (mode <= 1 && r < ir::kMaxRank) {
      size_t i = static_cast<size_t>(rng_.below(r));
      std::vector<int64_t> f = divisors(s[i]);
      t = s;
      if (f.empty()) {
        t.insert(t.begin() + static_cast<std::ptrdiff_t>(i) + rng_.below(2), 1);
      } else {
        int64_t x = f[static_cast<size_t>(rng_.below(static_cast<int64_t>(f.size())))];
        t[i] = s[i] / x;
        t.insert(t.begin() + static_cast<std::ptrdiff_t>(i) + 1, x);
      }
    } else {
      int64_t left = ir::numElements(s);
      int q = 1 + static_cast<int>(rng_.below(ir::kMaxRank));
      for (int i = 0; i + 1 < q; ++i) {
        std::vector<int64_t> f = divisors(left);
        int64_t x = f.empty() || rng_.chance(0.15) ? 1 : f[static_cast<size_t>(rng_.below(static_cast<int64_t>(f.size())))];
        t.push_back(x);
        left /= x;
      }
      t.push_back(left);
    }
    if (rng_.chance(0.35)) t[static_cast<size_t>(rng_.below(static_cast<int64_t>(t.size())))] = -1;
    return reshape(a, t);
  }
  static std::vector<int64_t> divisors(int64_t n) {
    std::vector<int64_t> f;
    for (int64_t x = 2; x < n && x <= 64; ++x)
      if (n % x == 0) f.push_back(x);
    return f;
  }

  // A range [start, end) of an extent n >= 2: often one half, else any
  // non-empty range (the whole extent included).
  std::pair<int64_t, int64_t> range(int64_t n) {
    if (n >= 2 && rng_.chance(0.4)) {
      int64_t h = n / 2;
      return rng_.chance(0.5) ? std::pair<int64_t, int64_t>{0, h} : std::pair<int64_t, int64_t>{h, n};
    }
    int64_t start = rng_.below(n);
    return {start, start + 1 + rng_.below(n - start)};
  }

  // slice along any dim of extent >= 2, the last one more often.
  ValueId sliceOp(ValueId a) {
    const Shape s = shapeOf(a);
    int r = rankOf(a);
    std::vector<int> dims;
    for (int d = 0; d < r; ++d)
      if (s[static_cast<size_t>(d)] >= 2) dims.push_back(d);
    if (dims.empty()) return ir::kNoValue;
    int d = s.back() >= 2 && rng_.chance(0.4) ? r - 1 : dims[static_cast<size_t>(rng_.below(static_cast<int64_t>(dims.size())))];
    auto [start, end] = range(s[static_cast<size_t>(d)]);
    return slice(a, spellDim(d, r), start, end);
  }

  // concat of two or three values whose other dims are equal: a's
  // rotate_half (with or without the neg), a beside a slice (or the neg of
  // a slice) of itself, or a beside another value of the pool or a fresh
  // input; the result holds at most twice maxElements.
  ValueId concatOp(ValueId a) {
    const Shape s = shapeOf(a);
    int r = rankOf(a);
    int d = rng_.chance(0.5) ? r - 1 : static_cast<int>(rng_.below(r));
    int64_t n = s[static_cast<size_t>(d)];
    int64_t other = ir::numElements(s) / n;  // elements per index of dim d
    int64_t room = 2 * opt_.maxElements / other - n;  // extent along d the other parts may add
    int mode = static_cast<int>(rng_.below(3));
    if (mode == 0 && n >= 2) {
      int64_t h = n % 2 == 0 && rng_.chance(0.7) ? n / 2 : 1 + rng_.below(n - 1);
      return rotate(a, spellDim(d, r), h, rng_.chance(0.6));
    }
    std::vector<ValueId> parts = {a};
    int count = rng_.chance(0.3) ? 3 : 2;
    for (int i = 1; i < count; ++i) {
      ValueId p = ir::kNoValue;
      if (mode == 1 && n >= 2) {
        auto [start, end] = range(n);
        if (end - start <= room) {
          p = slice(a, d, start, end);
          if (rng_.chance(0.3)) p = op(OpKind::Neg, {p});
        }
      }
      if (p == ir::kNoValue) {
        std::vector<ValueId> fits;
        for (ValueId v : pool_) {
          const Shape& sv = shapeOf(v);
          if (rankOf(v) != r || sv[static_cast<size_t>(d)] > room) continue;
          bool same = true;
          for (int k = 0; k < r; ++k) same = same && (k == d || sv[static_cast<size_t>(k)] == s[static_cast<size_t>(k)]);
          if (same) fits.push_back(v);
        }
        if (!fits.empty() && rng_.chance(0.5)) {
          p = fits[static_cast<size_t>(rng_.below(static_cast<int64_t>(fits.size())))];
        } else if (room >= 1 && other <= opt_.maxElements) {
          Shape t = s;
          t[static_cast<size_t>(d)] = std::max<int64_t>(1, std::min({extent(), room, opt_.maxElements / other}));
          p = input(t);
        }
      }
      if (p == ir::kNoValue) break;
      room -= shapeOf(p)[static_cast<size_t>(d)];
      parts.insert(parts.begin() + rng_.below(static_cast<int64_t>(parts.size()) + 1), p);
    }
    if (parts.size() < 2) return ir::kNoValue;
    return op(OpKind::Concat, parts, spellDim(d, r));
  }


  ir::Graph finish() {
    // The newest operation result is the first output; sometimes a second
    // one that no other op reads.
    std::vector<ValueId> results;
    for (ValueId v : pool_)
      if (g_.producer(v).kind != OpKind::Input) results.push_back(v);
    if (results.empty()) results.push_back(op(OpKind::Exp, {pool_.back()}));
    Edit edit;
    edit.outputs.push_back(results.back());
    std::vector<char> used(g_.values.size(), 0);
    for (const ir::Op& o : g_.ops)
      for (ValueId in : o.inputs) used[static_cast<size_t>(in)] = 1;
    // The motif's result stays in the program even when the random
    // operations went elsewhere (also when they read it on a branch that
    // the first output does not need).
    std::vector<char> needed(g_.values.size(), 0);
    needed[static_cast<size_t>(results.back())] = 1;
    for (size_t i = g_.ops.size(); i-- > 0;) {
      const ir::Op& o = g_.ops[i];
      if (!o.results.empty() && needed[static_cast<size_t>(o.results[0])])
        for (ValueId in : o.inputs) needed[static_cast<size_t>(in)] = 1;
    }
    if (g_.producer(motifEnd_).kind != OpKind::Input && !needed[static_cast<size_t>(motifEnd_)])
      edit.outputs.push_back(motifEnd_);
    else if (results.size() > 2 && rng_.chance(0.3)) {
      for (size_t i = results.size() - 1; i-- > 0;)
        if (!used[static_cast<size_t>(results[i])]) {
          edit.outputs.push_back(results[i]);
          break;
        }
    }
    for (size_t i = 0; i < edit.outputs.size(); ++i)
      g_.values[static_cast<size_t>(edit.outputs[i])].name = fmt::format("out{}", i);
    std::string why;
    auto g = rebuild(g_, edit, &why);
    if (!g) throw std::logic_error("generator: " + why);
    return std::move(*g);
  }

  Rng rng_;
  GenOptions opt_;
  ir::Graph g_;
  std::vector<ValueId> pool_;
  std::vector<char> positive_;
  ValueId motifEnd_ = ir::kNoValue;
  int inputs_ = 0;
};

}  // namespace

std::vector<ir::OpKind> programOperators() {
  std::vector<OpKind> kinds;
  for (OpKind k : ir::allOpKinds())
    if (classifyKind(k) != OpClass::NotDrawn) kinds.push_back(k);
  return kinds;
}

ir::Graph generateProgram(uint64_t seed, const GenOptions& options) { return Generator(seed, options).run(); }

int countStatements(const ir::Graph& g) {
  int n = 0;
  for (const ir::Op& op : g.ops) n += op.kind != OpKind::Input && op.kind != OpKind::Const;
  return n;
}

}  // namespace mirage::fuzz
