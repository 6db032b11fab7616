// Fingerprint rules of the pre-defined operators (docs/verifier.md):
//   sums, products, quotients, matmul, reductions: exact in Z_P, and in Z_Q
//     when every operand has a residue lane;
//   exp: w^(residue) when the argument has a residue, else a random function;
//   neg: exact (-x in both lanes);
//   sqrt, silu, gelu, tanh, sigmoid, log: random functions of the argument's
//     value (keys from the table's keyedBy column);
//     rsqrt = 1 / sqrt; square = x * x; reduce_mean = reduce_sum * (1/n);
//   reduce_max, maximum: a random function of the hash of the multiset
//     maximized, where an operand that is itself a maximum contributes its
//     multiset; relu(x) = maximum(x, 0), abs(x) = maximum(x, -x) and
//     minimum(a, b) = -maximum(-a, -b), exactly.
#include "tensor_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "hash.h"
#include "mirage/ir/layout.h"

namespace mirage::verify {
namespace {

using ir::OpKind;
using ir::Shape;

constexpr int kRank = 4;
using Idx4 = std::array<int64_t, kRank>;

// Right-aligns a shape of rank <= 4 into four extents.
Idx4 pad4(const Shape& s) {
  Idx4 r{1, 1, 1, 1};
  size_t off = kRank - s.size();
  for (size_t i = 0; i < s.size(); ++i) r[off + i] = s[i];
  return r;
}

Idx4 strides4(const Idx4& ext) {
  Idx4 st{};
  int64_t s = 1;
  for (int i = kRank - 1; i >= 0; --i) {
    st[static_cast<size_t>(i)] = s;
    s *= ext[static_cast<size_t>(i)];
  }
  return st;
}

// Strides of an operand broadcast to `out` (0 along stretched dims).
Idx4 broadcastStrides(const Shape& operand, const Idx4& out) {
  Idx4 ext = pad4(operand), st = strides4(ext);
  for (int i = 0; i < kRank; ++i)
    if (ext[static_cast<size_t>(i)] == 1 && out[static_cast<size_t>(i)] != 1) st[static_cast<size_t>(i)] = 0;
  return st;
}

// out[i] = f(a[ia], b[ib]) under broadcasting, rows of the last dim in
// parallel.
template <class F>
void broadcastBinary(const Shape& outShape, const Shape& aShape, const u64* a, const Shape& bShape,
                     const u64* b, u64* out, ThreadPool* pool, F f) {
  int64_t n = ir::numElements(outShape);
  if (aShape == bShape) {
    parallelFor(pool, n, 1 << 15, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = f(a[i], b[i]);
    });
    return;
  }
  if (ir::numElements(bShape) == 1 && ir::numElements(aShape) == n) {
    u64 bv = b[0];
    parallelFor(pool, n, 1 << 15, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = f(a[i], bv);
    });
    return;
  }
  if (ir::numElements(aShape) == 1 && ir::numElements(bShape) == n) {
    u64 av = a[0];
    parallelFor(pool, n, 1 << 15, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) out[i] = f(av, b[i]);
    });
    return;
  }
  Idx4 ext = pad4(outShape);
  Idx4 sa = broadcastStrides(aShape, ext), sb = broadcastStrides(bShape, ext);
  int64_t rows = ext[0] * ext[1] * ext[2], inner = ext[3];
  parallelFor(pool, rows, std::max<int64_t>(1, (1 << 15) / inner), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      int64_t i2 = r % ext[2], i1 = (r / ext[2]) % ext[1], i0 = r / (ext[2] * ext[1]);
      const u64* pa = a + i0 * sa[0] + i1 * sa[1] + i2 * sa[2];
      const u64* pb = b + i0 * sb[0] + i1 * sb[1] + i2 * sb[2];
      u64* po = out + r * inner;
      for (int64_t j = 0; j < inner; ++j) po[j] = f(pa[j * sa[3]], pb[j * sb[3]]);
    }
  });
}

template <class FP, class FQ>
void laneBinary(const FTensor& a, const FTensor& b, FTensor& out, bool withQ, ThreadPool* pool,
                FP fp, FQ fq) {
  size_t n = static_cast<size_t>(ir::numElements(out.shape));
  out.p.resize(n);
  broadcastBinary(out.shape, a.shape, a.p.data(), b.shape, b.p.data(), out.p.data(), pool, fp);
  if (withQ) {
    out.q.resize(n);
    broadcastBinary(out.shape, a.shape, a.q.data(), b.shape, b.q.data(), out.q.data(), pool, fq);
  } else {
    out.q.clear();
  }
}

// The multiset-hash contribution of each element of x (of -x when negated).
std::vector<u64> contributions(const FTensor& x, bool negated, const Trial& trial) {
  std::vector<u64> c(x.p.size());
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = negated ? maxElementHash(trial.P().neg(x.p[i]), trial)
                   : maxContribution(x, static_cast<int64_t>(i), trial);
  return c;
}

// out = the maximum of the two multisets ca (shape as) and cb (shape bs),
// broadcast to out.shape.
void maximumOfPair(const std::vector<u64>& ca, const Shape& as, const std::vector<u64>& cb, const Shape& bs,
                   const Trial& trial, ThreadPool* pool, bool wantQ, FTensor& out) {
  out.mx.resize(static_cast<size_t>(ir::numElements(out.shape)));
  const MontField& P = trial.P();
  broadcastBinary(out.shape, as, ca.data(), bs, cb.data(), out.mx.data(), pool,
                  [&](u64 x, u64 y) { return P.add(x, y); });
  finishMaximum(out, trial, wantQ);
}

// out = -out in both lanes; the result is no longer a maximum.
void negateLanes(FTensor& out, const Trial& trial) {
  for (u64& v : out.p) v = trial.P().neg(v);
  for (u64& v : out.q) v = trial.Q().neg(v);
  out.mx.clear();
}

bool elementwiseBinary(OpKind kind, const FTensor& a, const FTensor& b, const Trial& trial,
                       ThreadPool* pool, bool wantQ, FTensor& out) {
  bool withQ = a.hasQ() && b.hasQ() && wantQ;
  const MontField& P = trial.P();
  const MontField& Q = trial.Q();
  switch (kind) {
    case OpKind::Add:
      laneBinary(a, b, out, withQ, pool, [&](u64 x, u64 y) { return P.add(x, y); },
                 [&](u64 x, u64 y) { return Q.add(x, y); });
      return true;
    case OpKind::Sub:
      laneBinary(a, b, out, withQ, pool, [&](u64 x, u64 y) { return P.sub(x, y); },
                 [&](u64 x, u64 y) { return Q.sub(x, y); });
      return true;
    case OpKind::Mul:
      laneBinary(a, b, out, withQ, pool, [&](u64 x, u64 y) { return P.mul(x, y); },
                 [&](u64 x, u64 y) { return Q.mul(x, y); });
      return true;
    case OpKind::Div: {
      // a / b = a * b^-1; the inverse of the divisor is taken once per
      // element of b, before broadcasting.
      FTensor inv;
      inv.shape = b.shape;
      inv.p = b.p;
      if (!invertAll(inv.p, P, pool)) return false;
      if (withQ) {
        inv.q = b.q;
        if (!invertAll(inv.q, Q, pool)) return false;
      }
      laneBinary(a, inv, out, withQ, pool, [&](u64 x, u64 y) { return P.mul(x, y); },
                 [&](u64 x, u64 y) { return Q.mul(x, y); });
      return true;
    }
    case OpKind::Maximum:
      // The maximum of the union of the two multisets (an operand that is
      // itself a maximum contributes its multiset: maximum is associative).
      maximumOfPair(contributions(a, false, trial), a.shape, contributions(b, false, trial), b.shape, trial,
                    pool, wantQ, out);
      return true;
    case OpKind::Minimum:
      // minimum(a, b) = -maximum(-a, -b), exactly.
      maximumOfPair(contributions(a, true, trial), a.shape, contributions(b, true, trial), b.shape, trial,
                    pool, wantQ, out);
      negateLanes(out, trial);
      return true;
    MIRAGE_CASES_NOT_BINARY break;
  }
  throw std::logic_error("elementwiseBinary: not a binary operator");
}

// out = a random function (of kind k) of x's values, with a residue lane
// when one is wanted.
void randomFunction(KeyKind k, const FTensor& x, const Trial& trial, ThreadPool* pool, bool wantQ,
                    FTensor& out) {
  size_t n = x.p.size();
  out.p.resize(n);
  if (wantQ) out.q.resize(n); else out.q.clear();
  parallelFor(pool, static_cast<int64_t>(n), 1 << 14, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      out.p[static_cast<size_t>(i)] = trial.randomP(k, x.p[static_cast<size_t>(i)]);
      if (wantQ) out.q[static_cast<size_t>(i)] = trial.randomQ(k, x.p[static_cast<size_t>(i)]);
    }
  });
}

bool elementwiseUnary(OpKind kind, const FTensor& x, const Trial& trial, ThreadPool* pool,
                      bool wantQ, FTensor& out) {
  size_t n = x.p.size();
  switch (kind) {
    case OpKind::Exp:
      if (!x.hasQ()) {
        // exp of a value with no exact residue mod Q (an exp of an exp, say).
        randomFunction(KeyKind::ExpNoResidue, x, trial, pool, wantQ, out);
        return true;
      }
      out.p.resize(n);
      out.q.clear();
      parallelFor(pool, static_cast<int64_t>(n), 1 << 13, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i)
          out.p[static_cast<size_t>(i)] =
              trial.expOmega(trial.Q().fromMont(x.q[static_cast<size_t>(i)]));
      });
      return true;
    case OpKind::Square:
      out.p.resize(n);
      for (size_t i = 0; i < n; ++i) out.p[i] = trial.P().mul(x.p[i], x.p[i]);
      if (x.hasQ() && wantQ) {
        out.q.resize(n);
        for (size_t i = 0; i < n; ++i) out.q[i] = trial.Q().mul(x.q[i], x.q[i]);
      } else {
        out.q.clear();
      }
      return true;
    case OpKind::Sqrt:
    case OpKind::Silu:
    case OpKind::Gelu:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Log:
      randomFunction(randomKey(kind), x, trial, pool, wantQ, out);
      return true;
    case OpKind::Neg:  // exact: -x in both lanes
      out.p = x.p;
      out.q = x.hasQ() && wantQ ? x.q : std::vector<u64>();
      negateLanes(out, trial);
      return true;
    case OpKind::Relu: {  // maximum(x, 0)
      FTensor zero;
      zero.p = {0};
      maximumOfPair(contributions(x, false, trial), x.shape, contributions(zero, false, trial), Shape{}, trial,
                    pool, wantQ, out);
      return true;
    }
    case OpKind::Abs: {  // maximum(x, -x)
      std::vector<u64> cx = contributions(x, false, trial);
      maximumOfPair(cx, x.shape, contributions(x, true, trial), x.shape, trial, pool, wantQ, out);
      return true;
    }
    case OpKind::Rsqrt:
      // rsqrt(x) = 1 / sqrt(x), exactly.
      randomFunction(randomKey(kind), x, trial, pool, wantQ, out);
      return invertAll(out.p, trial.P(), pool) && invertAll(out.q, trial.Q(), pool);
    MIRAGE_CASES_NOT_UNARY break;
  }
  throw std::logic_error("elementwiseUnary: not a unary operator");
}

// c[j] = sum_k a[k] * bt[j * K + k] for j < cols. Two columns at a time: two
// 128-bit accumulators stay in registers (measured fastest on x86-64; wider
// blocks spill), sixteen products per reduction.
void dotBlock(const MontField& f, const u64* arow, const u64* bt, int64_t K, int64_t cols, u64* crow) {
  int64_t j = 0;
  for (; j + 2 <= cols; j += 2) {
    const u64* b0r = bt + j * K;
    const u64* b1r = b0r + K;
    u64 c0 = 0, c1 = 0;
    int64_t kk = 0;
    for (; kk + 16 <= K; kk += 16) {  // fixed trip count: fully unrolled
      u128 s0 = 0, s1 = 0;
      for (int64_t k = kk; k < kk + 16; ++k) {
        u64 av = arow[k];
        s0 += static_cast<u128>(av) * b0r[k];
        s1 += static_cast<u128>(av) * b1r[k];
      }
      c0 = f.add(c0, f.reduceWide(s0));
      c1 = f.add(c1, f.reduceWide(s1));
    }
    if (kk < K) {
      u128 s0 = 0, s1 = 0;
      for (int64_t k = kk; k < K; ++k) {
        u64 av = arow[k];
        s0 += static_cast<u128>(av) * b0r[k];
        s1 += static_cast<u128>(av) * b1r[k];
      }
      c0 = f.add(c0, f.reduceWide(s0));
      c1 = f.add(c1, f.reduceWide(s1));
    }
    crow[j] = c0;
    crow[j + 1] = c1;
  }
  for (; j < cols; ++j) {
    const u64* br = bt + j * K;
    u64 c = 0;
    for (int64_t kk = 0; kk < K; kk += 16) {
      int64_t end = std::min(K, kk + 16);
      u128 acc = 0;
      for (int64_t k = kk; k < end; ++k) acc += static_cast<u128>(arow[k]) * br[k];
      c = f.add(c, f.reduceWide(acc));
    }
    crow[j] = c;
  }
}

// crow[j] = sum_k arow[k] * b[k * ldb + j] for j < cols, reading B by rows as
// it lies: for a row or two of A (decode steps: one query row a head) packing
// B transposed costs as much as the products it serves, and its strided
// writes more. Sixteen products per column summed in 128 bits, then reduced.
// Output columns per task of matmulLane: one block of B packed, or the
// 128-bit sums rowTimesBlock keeps.
constexpr int64_t kColumnBlock = 64;

void rowTimesBlock(const MontField& f, const u64* arow, const u64* b, int64_t ldb, int64_t K, int64_t cols,
                   u64* crow) {
  u128 s[kColumnBlock];
  for (int64_t j = 0; j < cols; ++j) crow[j] = 0;
  for (int64_t kk = 0; kk < K; kk += 16) {
    int64_t end = std::min(K, kk + 16);
    for (int64_t j = 0; j < cols; ++j) s[j] = 0;
    for (int64_t k = kk; k < end; ++k) {
      const u64 av = arow[k];
      const u64* brow = b + k * ldb;
      for (int64_t j = 0; j < cols; ++j) s[j] += static_cast<u128>(av) * brow[j];
    }
    for (int64_t j = 0; j < cols; ++j) crow[j] = f.add(crow[j], f.reduceWide(s[j]));
  }
}

// C[m, n] = A[m, k] * B[k, n] for one lane, with A and B given by base
// pointers of each batch. Products of representatives are summed in 128 bits,
// sixteen at a time, then reduced once.
void matmulLane(const MontField& f, const Shape& outShape, const Shape& aShape, const u64* A,
                const Shape& bShape, const u64* B, u64* C, ThreadPool* pool) {
  size_t r = outShape.size();
  int64_t M = outShape[r - 2], N = outShape[r - 1], K = aShape[aShape.size() - 1];
  Shape lead(outShape.begin(), outShape.end() - 2);
  Shape la(aShape.begin(), aShape.end() - 2), lb(bShape.begin(), bShape.end() - 2);
  int64_t batches = ir::numElements(lead);
  // Batch strides (in matrices) with broadcasting.
  Idx4 le = pad4(lead);
  Idx4 sa = broadcastStrides(la, le), sb = broadcastStrides(lb, le);
  // Work is split into (batch, block of kColumns output columns); each task
  // packs its block of B transposed (so that every dot product reads two
  // contiguous rows) into a small buffer and computes all M rows of it.
  constexpr int64_t kColumns = kColumnBlock;
  constexpr int64_t kFewRows = 2;  // up to this many rows of A, B is read in place
  int64_t blocks = (N + kColumns - 1) / kColumns;
  parallelFor(pool, batches * blocks, 1, [&](int64_t lo, int64_t hi) {
    std::vector<u64> packed(M <= kFewRows ? 0 : static_cast<size_t>(std::min(N, kColumns) * K));
    for (int64_t task = lo; task < hi; ++task) {
      int64_t batch = task / blocks, j0 = (task % blocks) * kColumns;
      int64_t cols = std::min(kColumns, N - j0);
      int64_t b3 = batch % le[3], b2 = (batch / le[3]) % le[2], b1 = (batch / (le[3] * le[2])) % le[1],
              b0 = batch / (le[3] * le[2] * le[1]);
      int64_t am = b0 * sa[0] + b1 * sa[1] + b2 * sa[2] + b3 * sa[3];
      int64_t bm = b0 * sb[0] + b1 * sb[1] + b2 * sb[2] + b3 * sb[3];
      const u64* bsrc = B + bm * K * N + j0;
      if (M <= kFewRows) {
        for (int64_t i = 0; i < M; ++i)
          rowTimesBlock(f, A + (am * M + i) * K, bsrc, N, K, cols, C + (batch * M + i) * N + j0);
        continue;
      }
      for (int64_t k = 0; k < K; ++k)
        for (int64_t j = 0; j < cols; ++j) packed[static_cast<size_t>(j * K + k)] = bsrc[k * N + j];
      for (int64_t i = 0; i < M; ++i)
        dotBlock(f, A + (am * M + i) * K, packed.data(), K, cols, C + (batch * M + i) * N + j0);
    }
  });
}

void matmul(const FTensor& a, const FTensor& b, const Trial& trial, ThreadPool* pool, bool wantQ,
            FTensor& out) {
  size_t n = static_cast<size_t>(ir::numElements(out.shape));
  out.p.resize(n);
  matmulLane(trial.P(), out.shape, a.shape, a.p.data(), b.shape, b.p.data(), out.p.data(), pool);
  if (a.hasQ() && b.hasQ() && wantQ) {
    out.q.resize(n);
    matmulLane(trial.Q(), out.shape, a.shape, a.q.data(), b.shape, b.q.data(), out.q.data(), pool);
  } else {
    out.q.clear();
  }
}

// Splits `shape` around `dim` into (outer, extent, inner).
void around(const Shape& shape, int dim, int64_t& outer, int64_t& n, int64_t& inner) {
  outer = 1;
  inner = 1;
  for (int i = 0; i < dim; ++i) outer *= shape[static_cast<size_t>(i)];
  n = shape[static_cast<size_t>(dim)];
  for (size_t i = static_cast<size_t>(dim) + 1; i < shape.size(); ++i) inner *= shape[i];
}

// out[o, c, i] = sum_j x[o, c + s*j, i] for one lane.
void sumLane(const MontField& f, const std::vector<u64>& x, int64_t outer, int64_t n, int64_t inner,
             int64_t s, std::vector<u64>& out, ThreadPool* pool) {
  out.assign(static_cast<size_t>(outer * s * inner), 0);
  parallelFor(pool, outer * s, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, (n / s) * inner)),
              [&](int64_t lo, int64_t hi) {
                for (int64_t oc = lo; oc < hi; ++oc) {
                  int64_t o = oc / s, c = oc % s;
                  u64* dst = out.data() + oc * inner;
                  for (int64_t j = c; j < n; j += s) {
                    const u64* src = x.data() + (o * n + j) * inner;
                    for (int64_t i = 0; i < inner; ++i) dst[i] = f.add(dst[i], src[i]);
                  }
                }
              });
}

void reduce(const ir::Op& op, const FTensor& x, const Trial& trial, ThreadPool* pool, bool wantQ,
            FTensor& out) {
  int64_t outer, n, inner;
  around(x.shape, op.dim, outer, n, inner);
  if (op.kind == OpKind::ReduceMax) {
    out.mx.assign(static_cast<size_t>(outer * inner), 0);
    parallelFor(pool, outer, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(1, n * inner)),
                [&](int64_t lo, int64_t hi) {
                  for (int64_t o = lo; o < hi; ++o)
                    for (int64_t j = 0; j < n; ++j)
                      for (int64_t i = 0; i < inner; ++i) {
                        u64& m = out.mx[static_cast<size_t>(o * inner + i)];
                        m = trial.P().add(m, maxContribution(x, (o * n + j) * inner + i, trial));
                      }
                });
    finishMaximum(out, trial, wantQ);
    return;
  }
  int64_t s = op.kind == OpKind::ReduceSum ? op.size : 1;
  sumLane(trial.P(), x.p, outer, n, inner, s, out.p, pool);
  if (x.hasQ() && wantQ)
    sumLane(trial.Q(), x.q, outer, n, inner, s, out.q, pool);
  else
    out.q.clear();
  if (op.kind == OpKind::ReduceMean) {
    // reduce_mean = reduce_sum * (1/n), exactly.
    const MontField& P = trial.P();
    const MontField& Q = trial.Q();
    u64 ip = P.inv(P.toMont(static_cast<u64>(n)));
    for (u64& v : out.p) v = P.mul(v, ip);
    u64 iq = Q.inv(Q.toMont(static_cast<u64>(n)));
    for (u64& v : out.q) v = Q.mul(v, iq);
  }
}

void transposeLane(const std::vector<u64>& x, const Shape& inShape, int d0, int d1,
                   std::vector<u64>& out) {
  out.resize(x.size());
  int off = kRank - static_cast<int>(inShape.size());
  Idx4 ext = pad4(inShape), st = strides4(ext);
  Idx4 oext = ext;
  std::swap(oext[static_cast<size_t>(d0 + off)], oext[static_cast<size_t>(d1 + off)]);
  Idx4 ist = st;  // input stride for each output dim
  std::swap(ist[static_cast<size_t>(d0 + off)], ist[static_cast<size_t>(d1 + off)]);
  size_t o = 0;
  for (int64_t a = 0; a < oext[0]; ++a)
    for (int64_t b = 0; b < oext[1]; ++b)
      for (int64_t c = 0; c < oext[2]; ++c) {
        const u64* src = x.data() + a * ist[0] + b * ist[1] + c * ist[2];
        for (int64_t d = 0; d < oext[3]; ++d) out[o++] = src[d * ist[3]];
      }
}

void transpose(const ir::Op& op, const FTensor& x, bool wantQ, FTensor& out) {
  transposeLane(x.p, x.shape, op.dim, op.dim1, out.p);
  if (x.hasQ() && wantQ)
    transposeLane(x.q, x.shape, op.dim, op.dim1, out.q);
  else
    out.q.clear();
  if (x.isMax())
    transposeLane(x.mx, x.shape, op.dim, op.dim1, out.mx);
  else
    out.mx.clear();
}

// reshape, concat, slice move every lane exactly (ir/layout.h). The result
// has a residue lane when every operand has one; it has a max lane when some
// operand has one, the other operands' elements holding what they would
// contribute to a maximum (maxElementHash of their value), so that a later
// reduce_max sees each element as the single-element evaluator does.
void layout(const ir::Op& op, const std::vector<const FTensor*>& ins, const Trial& trial, bool wantQ,
            FTensor& out) {
  std::vector<Shape> shapes;
  bool withQ = wantQ, withMax = false;
  for (const FTensor* t : ins) {
    shapes.push_back(t->shape);
    withQ = withQ && t->hasQ();
    withMax = withMax || t->isMax();
  }
  ir::LayoutMap map(op, shapes, out.shape);
  size_t n = static_cast<size_t>(ir::numElements(out.shape));
  auto lane = [&](auto pick, std::vector<u64>& dst) {
    std::vector<const u64*> src;
    for (const FTensor* t : ins) src.push_back(pick(*t).data());
    dst.resize(n);
    ir::applyLayout(map, src, dst.data());
  };
  lane([](const FTensor& t) -> const std::vector<u64>& { return t.p; }, out.p);
  if (withQ)
    lane([](const FTensor& t) -> const std::vector<u64>& { return t.q; }, out.q);
  else
    out.q.clear();
  out.mx.clear();
  if (withMax) {
    std::vector<std::vector<u64>> filled(ins.size());
    for (size_t k = 0; k < ins.size(); ++k)
      if (!ins[k]->isMax()) {
        filled[k].resize(ins[k]->p.size());
        for (size_t i = 0; i < filled[k].size(); ++i) filled[k][i] = maxElementHash(ins[k]->p[i], trial);
      }
    std::vector<const u64*> src;
    for (size_t k = 0; k < ins.size(); ++k) src.push_back(ins[k]->isMax() ? ins[k]->mx.data() : filled[k].data());
    out.mx.resize(n);
    ir::applyLayout(map, src, out.mx.data());
  }
}

}  // namespace

KeyKind randomKey(ir::OpKind kind) {
  const ir::OpInfo& info = ir::opInfo(kind);
  if (info.encoding != ir::VerifyEncoding::Keyed && info.encoding != ir::VerifyEncoding::InverseOfKeyed)
    throw std::logic_error(fmt::format("randomKey: '{}' is not encoded by a keyed random function", info.name));
  return keyOfOperator(info.keyedBy);
}


FTensor makeConstant(const ir::Op& op, const MontField& P, const MontField& Q) {
  FieldConstant c;
  if (auto parsed = decimalToField(op.scalarText, P, Q)) {
    c = *parsed;
  } else if (std::isfinite(op.scalar)) {
    c = doubleToField(op.scalar, P, Q);
  } else {
    // No exact value (an infinite double with no usable literal): a value
    // drawn from the text, equal only to the same text. Sound, since such a
    // constant is equal to nothing else either.
    u64 h = hashString(op.scalarText, P.modulus());
    c = {P.fromRandom(mix64(h), mix64(h ^ 1)), Q.fromRandom(mix64(h ^ 2), mix64(h ^ 3))};
  }
  FTensor t;
  t.p = {c.p};
  t.q = {c.q};
  return t;
}

bool invertAll(std::vector<u64>& v, const MontField& f, ThreadPool* pool) {
  for (u64 x : v)
    if (x == 0) return false;
  int64_t n = static_cast<int64_t>(v.size());
  constexpr int64_t kChunk = 1024;
  parallelFor(pool, (n + kChunk - 1) / kChunk, 4, [&](int64_t lo, int64_t hi) {
    std::vector<u64> prefix(kChunk);
    for (int64_t c = lo; c < hi; ++c) {
      int64_t b = c * kChunk, e = std::min(n, b + kChunk);
      u64 acc = f.one();
      for (int64_t i = b; i < e; ++i) {
        prefix[static_cast<size_t>(i - b)] = acc;
        acc = f.mul(acc, v[static_cast<size_t>(i)]);
      }
      u64 inv = f.inv(acc);  // inverse of the product of the chunk
      for (int64_t i = e - 1; i >= b; --i) {
        u64 x = v[static_cast<size_t>(i)];
        v[static_cast<size_t>(i)] = f.mul(inv, prefix[static_cast<size_t>(i - b)]);
        inv = f.mul(inv, x);
      }
    }
  });
  return true;
}

u64 maxContribution(const FTensor& x, int64_t i, const Trial& trial) {
  // A maximum inside a maximum contributes the values it maximized
  // (max(max(A), max(B)) = max(A u B)); any other value contributes a
  // random hash of itself.
  if (x.isMax()) return x.mx[static_cast<size_t>(i)];
  return maxElementHash(x.p[static_cast<size_t>(i)], trial);
}

u64 maxElementHash(u64 value, const Trial& trial) {
  u64 k = trial.key(KeyKind::MaxElement);
  return trial.P().fromRandom(keyedHash(k, value), keyedHash(rotl64(k, 23) ^ 0x4d4d4d4d4d4d4d4dULL, value));
}

void finishMaximum(FTensor& t, const Trial& trial, bool wantQ) {
  size_t n = t.mx.size();
  t.p.resize(n);
  if (wantQ) t.q.resize(n); else t.q.clear();
  for (size_t i = 0; i < n; ++i) {
    t.p[i] = trial.randomP(KeyKind::MaxResult, t.mx[i]);
    if (wantQ) t.q[i] = trial.randomQ(KeyKind::MaxResult, t.mx[i]);
  }
}

bool applyOp(const ir::Op& op, const std::vector<const FTensor*>& ins, const ir::Shape& outShape,
             const Trial& trial, ThreadPool* pool, FTensor& out, bool wantQ) {
  out.shape = outShape;
  out.mx.clear();
  switch (op.kind) {
    case OpKind::Matmul: matmul(*ins[0], *ins[1], trial, pool, wantQ, out); return true;
    MIRAGE_CASES_BINARY return elementwiseBinary(op.kind, *ins[0], *ins[1], trial, pool, wantQ, out);
    MIRAGE_CASES_UNARY return elementwiseUnary(op.kind, *ins[0], trial, pool, wantQ, out);
    MIRAGE_CASES_REDUCTION reduce(op, *ins[0], trial, pool, wantQ, out); return true;
    case OpKind::Transpose: transpose(op, *ins[0], wantQ, out); return true;
    MIRAGE_CASES_PROGRAM_LAYOUT layout(op, ins, trial, wantQ, out); return true;
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  throw std::logic_error("applyOp: not a pre-defined operator");
}

void copyBox(const FTensor& src, const std::vector<int64_t>& srcOff, FTensor& dst,
             const std::vector<int64_t>& dstOff, const ir::Shape& box) {
  Idx4 sext = pad4(src.shape), dext = pad4(dst.shape), bext = pad4(box);
  Idx4 sst = strides4(sext), dst4 = strides4(dext);
  Idx4 so{0, 0, 0, 0}, doff{0, 0, 0, 0};
  size_t off = kRank - box.size();
  for (size_t i = 0; i < box.size(); ++i) {
    so[off + i] = srcOff[i];
    doff[off + i] = dstOff[i];
  }
  auto lane = [&](const std::vector<u64>& s, std::vector<u64>& d) {
    for (int64_t a = 0; a < bext[0]; ++a)
      for (int64_t b = 0; b < bext[1]; ++b)
        for (int64_t c = 0; c < bext[2]; ++c) {
          const u64* from = s.data() + (so[0] + a) * sst[0] + (so[1] + b) * sst[1] +
                            (so[2] + c) * sst[2] + so[3];
          u64* to = d.data() + (doff[0] + a) * dst4[0] + (doff[1] + b) * dst4[1] +
                    (doff[2] + c) * dst4[2] + doff[3];
          std::copy(from, from + bext[3], to);
        }
  };
  lane(src.p, dst.p);
  if (src.hasQ() && dst.hasQ()) lane(src.q, dst.q);
  if (src.isMax() && dst.isMax()) lane(src.mx, dst.mx);
}

}  // namespace mirage::verify
