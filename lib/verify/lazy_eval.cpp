// Demand-driven single-element evaluation (see lazy_eval.h). Every rule here
// mirrors one in tensor_ops.cpp / kernel_eval.cpp; lanes follow the same
// residue demand (demand.h), so an element computed here is bit-identical to
// the same element of the whole-tensor evaluation.
#include "lazy_eval.h"

#include <array>
#include <stdexcept>
#include <unordered_map>

#include "demand.h"
#include "hash.h"
#include "kernel_eval.h"
#include "mirage/ir/layout.h"
#include "tensor_ops.h"

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;
using Index = std::array<int64_t, 4>;

Index unflatten(int64_t flat, const Shape& s) {
  Index idx{};
  for (size_t i = s.size(); i-- > 0;) {
    idx[i] = flat % s[i];
    flat /= s[i];
  }
  return idx;
}

int64_t flatten(const Index& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t i = 0; i < s.size(); ++i) f = f * s[i] + idx[i];
  return f;
}

// The index into an operand of shape `in` that broadcasts to output index
// `idx` of rank `outRank` (right-aligned, size-1 dims stretch).
Index broadcastIndex(const Index& idx, size_t outRank, const Shape& in) {
  size_t off = outRank - in.size();
  Index r{};
  for (size_t i = 0; i < in.size(); ++i) r[i] = in[i] == 1 ? 0 : idx[off + i];
  return r;
}

// A block of a kernel's grid: its coordinates and its linear number.
struct Block {
  int64_t at[3];
  int64_t linear;
};

struct BodyKey {
  int32_t kernel, value, iteration;
  int64_t block, flat;
  bool operator==(const BodyKey&) const = default;
};
struct BodyKeyHash {
  size_t operator()(const BodyKey& k) const {
    u64 h = hashCombine(static_cast<u64>(k.kernel), static_cast<u64>(k.value));
    h = hashCombine(h, static_cast<u64>(static_cast<int64_t>(k.iteration)));
    h = hashCombine(h, static_cast<u64>(k.block));
    return static_cast<size_t>(hashCombine(h, static_cast<u64>(k.flat)));
  }
};

struct OverBudget {};  // thrown out of the recursion when the budget is spent

}  // namespace

struct LazyEvaluator::Impl {
  struct Kernel {
    std::vector<char> need, after;
    std::vector<int> argIndex;        // body input value -> argument position
    std::vector<int> saveOf;          // result index -> body op index of its save
    std::vector<FTensor> constants;   // by body value
  };

  const ir::Graph& g;
  const Trial& trial;
  int64_t budget;
  std::vector<char> need;
  std::vector<FTensor> constants;  // by program value
  std::vector<Trial::InputKeys> inputKeys;
  std::unordered_map<int, Kernel> kernels;  // by op index
  std::unordered_map<u64, Elem> memo;       // (value << 40) | flat
  std::unordered_map<BodyKey, Elem, BodyKeyHash> bodyMemo;
  std::unordered_map<const ir::Op*, ir::LayoutMap> layouts;  // index maps of reshape/concat/slice

  const ir::LayoutMap& layoutOf(const ir::Graph& graph, const ir::Op& op) {
    auto it = layouts.find(&op);
    if (it != layouts.end()) return it->second;
    std::vector<Shape> shapes;
    for (ValueId in : op.inputs) shapes.push_back(graph.value(in).shape);
    return layouts.emplace(&op, ir::LayoutMap(op, shapes, graph.value(op.results[0]).shape)).first->second;
  }

  Impl(const ir::Graph& graph, const Trial& t, int64_t b) : g(graph), trial(t), budget(b) {
    need = residueDemand(g);
    constants.resize(g.values.size());
    inputKeys.resize(g.values.size());
    for (size_t i = 0; i < g.ops.size(); ++i) {
      const ir::Op& op = g.ops[i];
      if (op.kind == OpKind::Const) constants[static_cast<size_t>(op.results[0])] = makeConstant(op, t.P(), t.Q());
      if (op.kind == OpKind::Input)
        inputKeys[static_cast<size_t>(op.results[0])] = t.inputKeys(g.value(op.results[0]).name);
      if (op.kind == OpKind::Kernel) {
        Kernel k;
        const ir::Graph& body = *op.body;
        std::vector<char> resultNeed;
        for (ValueId r : op.results) resultNeed.push_back(need[static_cast<size_t>(r)]);
        k.need = residueDemand(body, resultNeed);
        k.after.assign(body.values.size(), 0);
        for (const ir::Op& bop : body.ops) {
          bool a = bop.kind == OpKind::Accum;
          for (ValueId in : bop.inputs) a = a || k.after[static_cast<size_t>(in)];
          for (ValueId r : bop.results) k.after[static_cast<size_t>(r)] = a;
        }
        k.argIndex.assign(body.values.size(), -1);
        for (size_t a = 0; a < body.inputs.size(); ++a) k.argIndex[static_cast<size_t>(body.inputs[a])] = static_cast<int>(a);
        k.saveOf.assign(op.results.size(), -1);
        k.constants.resize(body.values.size());
        for (size_t j = 0; j < body.ops.size(); ++j) {
          const ir::Op& bop = body.ops[j];
          if (bop.kind == OpKind::Save) k.saveOf[static_cast<size_t>(bop.resultIndex)] = static_cast<int>(j);
          if (bop.kind == OpKind::Const)
            k.constants[static_cast<size_t>(bop.results[0])] = makeConstant(bop, t.P(), t.Q());
        }
        kernels.emplace(static_cast<int>(i), std::move(k));
      }
    }
  }

  static Elem fromConstant(const FTensor& c, bool withQ) {
    Elem e;
    e.p = c.p[0];
    e.hasQ = withQ;
    e.q = withQ ? c.q[0] : 0;
    return e;
  }

  // The rule of a pre-defined operator at one element (a multi-index: no
  // divisions on this path). `fetch(v, index, e)` gives operand elements in
  // the same context (program, or kernel block and iteration).
  template <class Fetch>
  bool opElement(const ir::Graph& graph, const ir::Op& op, ValueId res, const Index& idx, bool needQ,
                 Fetch&& fetch, Elem& out) {
    const MontField& P = trial.P();
    const MontField& Q = trial.Q();
    const Shape& shape = graph.value(res).shape;
    out = Elem{};
    switch (op.kind) {
      case OpKind::Add:
      case OpKind::Sub:
      case OpKind::Mul:
      case OpKind::Div: {
        Elem a, b;
        if (!fetch(op.inputs[0], broadcastIndex(idx, shape.size(), graph.value(op.inputs[0]).shape), a)) return false;
        if (!fetch(op.inputs[1], broadcastIndex(idx, shape.size(), graph.value(op.inputs[1]).shape), b)) return false;
        out.hasQ = a.hasQ && b.hasQ && needQ;
        if (op.kind == OpKind::Add) {
          out.p = P.add(a.p, b.p);
          out.q = Q.add(a.q, b.q);
        } else if (op.kind == OpKind::Sub) {
          out.p = P.sub(a.p, b.p);
          out.q = Q.sub(a.q, b.q);
        } else if (op.kind == OpKind::Mul) {
          out.p = P.mul(a.p, b.p);
          out.q = Q.mul(a.q, b.q);
        } else {
          if (b.p == 0 || (out.hasQ && b.q == 0)) return false;
          out.p = P.mul(a.p, P.inv(b.p));
          out.q = out.hasQ ? Q.mul(a.q, Q.inv(b.q)) : 0;
        }
        if (!out.hasQ) out.q = 0;
        return true;
      }
      case OpKind::Maximum:
      case OpKind::Minimum: {
        // tensor_ops.cpp: the multiset of both operands (negated for the
        // minimum, whose result is then negated).
        Elem a, b;
        if (!fetch(op.inputs[0], broadcastIndex(idx, shape.size(), graph.value(op.inputs[0]).shape), a)) return false;
        if (!fetch(op.inputs[1], broadcastIndex(idx, shape.size(), graph.value(op.inputs[1]).shape), b)) return false;
        bool neg = op.kind == OpKind::Minimum;
        finishMax(P.add(contribution(a, neg), contribution(b, neg)), needQ, out);
        if (neg) negate(out);
        return true;
      }
      case OpKind::Relu:
      case OpKind::Abs: {
        // maximum(x, 0) and maximum(x, -x).
        Elem x;
        if (!fetch(op.inputs[0], idx, x)) return false;
        u64 other = op.kind == OpKind::Relu ? maxElementHash(0, trial) : contribution(x, true);
        finishMax(P.add(contribution(x, false), other), needQ, out);
        return true;
      }
      case OpKind::Neg: {
        Elem x;
        if (!fetch(op.inputs[0], idx, x)) return false;
        out.p = x.p;
        out.hasQ = x.hasQ && needQ;
        out.q = out.hasQ ? x.q : 0;
        negate(out);
        return true;
      }
      case OpKind::Matmul: {
        const Shape& as = graph.value(op.inputs[0]).shape;
        const Shape& bs = graph.value(op.inputs[1]).shape;
        size_t r = shape.size();
        int64_t K = as.back();
        // Operand indices: the broadcast batch index, then (i, k) and (k, j).
        Index ai = broadcastIndex(idx, r, as), bi = broadcastIndex(idx, r, bs);
        size_t ra = as.size(), rb = bs.size();
        ai[ra - 2] = idx[r - 2];
        bi[rb - 1] = idx[r - 1];
        u64 sp = 0, sq = 0;
        bool withQ = needQ;
        for (int64_t k = 0; k < K; ++k) {
          Elem a, b;
          ai[ra - 1] = k;
          bi[rb - 2] = k;
          if (!fetch(op.inputs[0], ai, a)) return false;
          if (!fetch(op.inputs[1], bi, b)) return false;
          withQ = withQ && a.hasQ && b.hasQ;
          sp = P.add(sp, P.mul(a.p, b.p));
          if (withQ) sq = Q.add(sq, Q.mul(a.q, b.q));
        }
        out.p = sp;
        out.hasQ = withQ;
        out.q = withQ ? sq : 0;
        return true;
      }
      case OpKind::Exp: {
        Elem x;
        if (!fetch(op.inputs[0], idx, x)) return false;
        if (x.hasQ) {
          out.p = trial.expOmega(Q.fromMont(x.q));
          return true;
        }
        out.p = trial.randomP(KeyKind::ExpNoResidue, x.p);
        out.hasQ = needQ;
        out.q = needQ ? trial.randomQ(KeyKind::ExpNoResidue, x.p) : 0;
        return true;
      }
      case OpKind::Square: {
        Elem x;
        if (!fetch(op.inputs[0], idx, x)) return false;
        out.p = P.mul(x.p, x.p);
        out.hasQ = x.hasQ && needQ;
        out.q = out.hasQ ? Q.mul(x.q, x.q) : 0;
        return true;
      }
      case OpKind::Sqrt:
      case OpKind::Rsqrt:
      case OpKind::Silu:
      case OpKind::Gelu:
      case OpKind::Tanh:
      case OpKind::Sigmoid:
      case OpKind::Log: {
        Elem x;
        if (!fetch(op.inputs[0], idx, x)) return false;
        KeyKind k = randomKey(op.kind);
        out.p = trial.randomP(k, x.p);
        out.hasQ = needQ;
        out.q = needQ ? trial.randomQ(k, x.p) : 0;
        if (op.kind == OpKind::Rsqrt) {
          if (out.p == 0 || (out.hasQ && out.q == 0)) return false;
          out.p = P.inv(out.p);
          if (out.hasQ) out.q = Q.inv(out.q);
        }
        return true;
      }
      case OpKind::ReduceSum:
      case OpKind::ReduceMean:
      case OpKind::ReduceMax: {
        const Shape& xs = graph.value(op.inputs[0]).shape;
        int d = op.dim;
        int64_t n = xs[static_cast<size_t>(d)];
        int64_t s = op.kind == OpKind::ReduceSum ? op.size : 1;
        Index xi = idx;
        u64 sp = 0, sq = 0, mx = 0;
        bool withQ = needQ;
        for (int64_t j = idx[static_cast<size_t>(d)]; j < n; j += s) {
          xi[static_cast<size_t>(d)] = j;
          Elem x;
          if (!fetch(op.inputs[0], xi, x)) return false;
          if (op.kind == OpKind::ReduceMax) {
            mx = P.add(mx, x.isMax ? x.mx : maxElementHash(x.p, trial));
            continue;
          }
          withQ = withQ && x.hasQ;
          sp = P.add(sp, x.p);
          if (withQ) sq = Q.add(sq, x.q);
        }
        if (op.kind == OpKind::ReduceMax) {
          finishMax(mx, needQ, out);
          return true;
        }
        if (op.kind == OpKind::ReduceMean) {
          sp = P.mul(sp, P.inv(P.toMont(static_cast<u64>(n))));
          if (withQ) sq = Q.mul(sq, Q.inv(Q.toMont(static_cast<u64>(n))));
        }
        out.p = sp;
        out.hasQ = withQ;
        out.q = withQ ? sq : 0;
        return true;
      }
      case OpKind::Transpose: {
        Index xi = idx;
        std::swap(xi[static_cast<size_t>(op.dim)], xi[static_cast<size_t>(op.dim1)]);
        Elem x;
        if (!fetch(op.inputs[0], xi, x)) return false;
        out = x;
        out.hasQ = x.hasQ && needQ;
        if (!out.hasQ) out.q = 0;
        return true;
      }
      MIRAGE_CASES_PROGRAM_LAYOUT {
        // The element moves unchanged (tensor_ops.cpp, layout). Whether the
        // result has a residue lane is decided per tensor there: every
        // operand must have one, so a concat asks each operand's first
        // element too.
        ir::CopyRun from = layoutOf(graph, op).source(flatten(idx, shape));
        ValueId in = op.inputs[static_cast<size_t>(from.operand)];
        Elem x;
        if (!fetch(in, unflatten(from.src, graph.value(in).shape), x)) return false;
        bool withQ = x.hasQ && needQ;
        if (op.kind == OpKind::Concat)
          for (ValueId other : op.inputs) {
            if (!withQ) break;
            Elem first;
            if (!fetch(other, Index{}, first)) return false;
            withQ = first.hasQ;
          }
        out = x;
        out.hasQ = withQ;
        if (!out.hasQ) out.q = 0;
        return true;
      }
      MIRAGE_CASES_LEAF
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND throw std::logic_error("LazyEvaluator: unexpected operator");
    }
  }

  // The multiset-hash contribution of x (of -x when negated), as
  // tensor_ops.cpp's contributions().
  u64 contribution(const Elem& x, bool negated) const {
    if (negated) return maxElementHash(trial.P().neg(x.p), trial);
    return x.isMax ? x.mx : maxElementHash(x.p, trial);
  }

  // -out in both lanes; no longer a maximum.
  void negate(Elem& out) const {
    out.p = trial.P().neg(out.p);
    if (out.hasQ) out.q = trial.Q().neg(out.q);
    out.isMax = false;
    out.mx = 0;
  }

  void finishMax(u64 mx, bool needQ, Elem& out) {
    out.isMax = true;
    out.mx = mx;
    out.p = trial.randomP(KeyKind::MaxResult, mx);
    out.hasQ = needQ;
    out.q = needQ ? trial.randomQ(KeyKind::MaxResult, mx) : 0;
  }

  // Inputs, constants, tiles and transposes are cheaper to recompute than
  // to look up; everything else is memoized.
  static bool memoized(OpKind k) {
    return k != OpKind::Input && k != OpKind::Const && k != OpKind::Tile && k != OpKind::Transpose &&
           !ir::isLayoutOp(k);
  }

  // Memoized elements cost memory (about 100 bytes each) and a hash-table
  // insertion each (about a microsecond with the table's growth): at most
  // this many. The pre-check's samples memoize up to 49,000 elements on the
  // examples' candidates that need them (GQA's two kernels), 11,000 on the
  // equiv suite; a cone that needs more is the whole program near enough
  // (QKNorm+GQA's three-kernel candidate: the sample filled 2^20 entries in
  // 1.5 s, then trial 0 whole took 1.1 s), so the check evaluates it whole.
  static constexpr size_t kMaxMemo = size_t{1} << 17;

  void spend() {
    if (--budget < 0 || memo.size() + bodyMemo.size() > kMaxMemo) throw OverBudget{};
  }

  // A program-level value's element.
  bool element(ValueId v, const Index& idx, Elem& out) {
    spend();
    const ir::Op& op = g.producer(v);
    bool useMemo = memoized(op.kind);
    int64_t flat = flatten(idx, g.value(v).shape);
    u64 key = (static_cast<u64>(v) << 40) | static_cast<u64>(flat);
    if (useMemo) {
      if (auto it = memo.find(key); it != memo.end()) {
        out = it->second;
        return true;
      }
    }
    bool needQ = need[static_cast<size_t>(v)];
    bool ok = true;
    switch (op.kind) {
      case OpKind::Input: {
        const Trial::InputKeys& k = inputKeys[static_cast<size_t>(v)];
        out = Elem{};
        out.p = trial.inputP(k, flat);
        out.hasQ = needQ;
        out.q = needQ ? trial.inputQ(k, flat) : 0;
        break;
      }
      case OpKind::Const: out = fromConstant(constants[static_cast<size_t>(v)], true); break;
      case OpKind::Kernel: ok = kernelResult(op, v, idx, out); break;
      MIRAGE_CASES_BODY
      MIRAGE_CASES_SHORTHAND throw std::logic_error("LazyEvaluator: unexpected operator at program level");
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PREDEFINED
        ok = opElement(g, op, v, idx, needQ,
                       [&](ValueId in, const Index& i, Elem& e) { return element(in, i, e); }, out);
    }
    if (ok && useMemo) memo.emplace(key, out);
    return ok;
  }

  int opIndex(const ir::Op& op) const { return static_cast<int>(&op - g.ops.data()); }

  bool kernelResult(const ir::Op& kop, ValueId v, const Index& idx, Elem& out) {
    int kIndex = opIndex(kop);
    const Kernel& k = kernels.at(kIndex);
    const ir::Graph& body = *kop.body;
    size_t r = static_cast<size_t>(g.value(v).resultIndex);
    const ir::Op& save = body.ops[static_cast<size_t>(k.saveOf[r])];
    const Shape& tile = body.value(save.inputs[0]).shape;
    Block block{{0, 0, 0}, 0};
    std::array<int64_t, 3> at = blockWriting(save, tile, kop.config.grid, idx.data());
    std::copy(at.begin(), at.end(), block.at);
    Index local = idx;
    for (size_t d = 0; d < tile.size(); ++d) local[d] = idx[d] % tile[d];
    block.linear = linearBlock(kop.config.grid, block.at);
    return bodyElement(kop, kIndex, block, save.inputs[0], -1, local, out);
  }

  // Element `idx` of body value v in `block` at `iteration` (-1 for values
  // computed after the loop).
  bool bodyElement(const ir::Op& kop, int kIndex, const Block& block, ValueId v, int iteration,
                   const Index& idx, Elem& out) {
    spend();
    const Kernel& k = kernels.at(kIndex);
    const ir::Graph& body = *kop.body;
    const ir::KernelConfig& cfg = kop.config;
    if (k.after[static_cast<size_t>(v)]) iteration = -1;
    const ir::Op& op = body.producer(v);
    bool useMemo = memoized(op.kind);
    int64_t flat = flatten(idx, body.value(v).shape);
    BodyKey key{kIndex, v, iteration, block.linear, flat};
    if (useMemo) {
      if (auto it = bodyMemo.find(key); it != bodyMemo.end()) {
        out = it->second;
        return true;
      }
    }
    bool needQ = k.need[static_cast<size_t>(v)];
    bool ok = true;
    switch (op.kind) {
      case OpKind::Const: out = fromConstant(k.constants[static_cast<size_t>(v)], true); break;
      case OpKind::Tile: {
        int a = k.argIndex[static_cast<size_t>(op.inputs[0])];
        ValueId arg = kop.inputs[static_cast<size_t>(a)];
        const Shape& tile = body.value(v).shape;
        Index at = idx;
        // The offset of this block's tile: imap'd dims move by whole tiles
        // (tile extent times the fmap split when the dim is also fmap'd).
        for (int gd = 0; gd < 3; ++gd) {
          int d = op.imap[static_cast<size_t>(gd)];
          if (d >= 0) {
            int64_t chunk = tile[static_cast<size_t>(d)] * (op.fmap == d ? cfg.forloop : 1);
            at[static_cast<size_t>(d)] += block.at[gd] * chunk;
          }
        }
        if (op.fmap >= 0) at[static_cast<size_t>(op.fmap)] += iteration * tile[static_cast<size_t>(op.fmap)];
        ok = element(arg, at, out);
        if (ok && !needQ) {
          out.hasQ = false;
          out.q = 0;
        }
        break;
      }
      case OpKind::Scan: {
        // The multiset of t over iterations 0..iteration (kernel_eval.cpp):
        // from the latest memoized prefix forward, without recursing once
        // per iteration (for-loops can be long).
        int start = iteration;
        u64 mx = 0;
        while (start > 0) {
          auto it = bodyMemo.find(BodyKey{kIndex, v, start - 1, block.linear, flat});
          if (it != bodyMemo.end()) {
            mx = it->second.mx;
            break;
          }
          --start;
        }
        for (int j = start; j <= iteration && ok; ++j) {
          Elem t;
          ok = bodyElement(kop, kIndex, block, op.inputs[0], j, idx, t);
          if (!ok) break;
          mx = trial.P().add(mx, t.isMax ? t.mx : maxElementHash(t.p, trial));
          if (j < iteration) {
            Elem prefix;
            finishMax(mx, true, prefix);
            bodyMemo.emplace(BodyKey{kIndex, v, j, block.linear, flat}, prefix);
          }
        }
        if (!ok) break;
        out = Elem{};
        finishMax(mx, true, out);
        break;
      }
      case OpKind::Accum: {
        const MontField& P = trial.P();
        const MontField& Q = trial.Q();
        if (ir::isRescaledAccum(op)) {
          // exp(-M) * sum_i x_i w^(m_i), M the last m (kernel_eval.cpp).
          Index mi = broadcastIndex(idx, body.value(v).shape.size(), body.value(op.inputs[1]).shape);
          u64 sum = 0;
          Elem x, m;
          for (int it = 0; it < cfg.forloop && ok; ++it) {
            ok = bodyElement(kop, kIndex, block, op.inputs[0], it, idx, x) &&
                 bodyElement(kop, kIndex, block, op.inputs[1], it, mi, m);
            if (ok) sum = P.add(sum, P.mul(x.p, trial.expOmega(Q.fromMont(m.q))));
          }
          if (!ok) break;
          out = Elem{};
          out.p = P.mul(sum, trial.expOmega(Q.fromMont(Q.neg(m.q))));
          break;
        }
        u64 sp = 0, sq = 0, mx = 0;
        bool withQ = needQ;
        Elem x;
        for (int it = 0; it < cfg.forloop && ok; ++it) {
          ok = bodyElement(kop, kIndex, block, op.inputs[0], it, idx, x);
          if (!ok) break;
          if (op.accumOp == ir::AccumOp::Max) {
            mx = P.add(mx, x.isMax ? x.mx : maxElementHash(x.p, trial));
          } else {
            withQ = withQ && x.hasQ;
            sp = P.add(sp, x.p);
            if (withQ) sq = Q.add(sq, x.q);
          }
        }
        if (!ok) break;
        out = Elem{};
        if (op.accumOp == ir::AccumOp::Max) {
          finishMax(mx, needQ, out);
        } else {
          out.p = sp;
          out.hasQ = withQ;
          out.q = withQ ? sq : 0;
          if (cfg.forloop == 1 && x.isMax) {  // one iteration: the value itself
            out.isMax = true;
            out.mx = x.mx;
          }
        }
        break;
      }
      case OpKind::Input:  // read through tile
      case OpKind::Save:
      MIRAGE_CASES_PROGRAM_LAYOUT
      MIRAGE_CASES_PROGRAM
      MIRAGE_CASES_SHORTHAND throw std::logic_error("LazyEvaluator: unexpected operator in a kernel body");
      MIRAGE_CASES_PREDEFINED
        ok = opElement(body, op, v, idx, needQ,
                       [&](ValueId in, const Index& i, Elem& e) {
                         return bodyElement(kop, kIndex, block, in, iteration, i, e);
                       },
                       out);
    }
    if (ok && useMemo) bodyMemo.emplace(key, out);
    return ok;
  }
};

LazyEvaluator::LazyEvaluator(const ir::Graph& g, const Trial& trial, int64_t budget)
    : impl_(std::make_unique<Impl>(g, trial, budget)) {}
LazyEvaluator::~LazyEvaluator() = default;

LazyEvaluator::Status LazyEvaluator::output(size_t o, int64_t flat, Elem& out) {
  try {
    ValueId v = impl_->g.outputs.at(o);
    return impl_->element(v, unflatten(flat, impl_->g.value(v).shape), out) ? Status::Ok
                                                                            : Status::ZeroDivisor;
  } catch (const OverBudget&) {
    return Status::OverBudget;
  }
}

}  // namespace mirage::verify
