// The pre-defined operators on dense row-major host tensors, written once
// for any element type: the interpreter instantiates them in f32 (ops.cpp,
// the contract's precision inside kernel bodies) and the float64 reference
// in double (reference64.cpp), so the two cannot disagree on what an
// operator means, only on the precision it is computed in. Loops are
// written so that the innermost one walks contiguous memory (matmul in
// i-k-j order, broadcasting with per-dim strides): the examples run at full
// size.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "mirage/ir/check.h"
#include "mirage/ir/graph.h"
#include "mirage/ir/layout.h"
#include "dense_matmul.h"

namespace mirage::interp::dense {

[[noreturn]] inline void internalError(const std::string& what) {
  throw std::logic_error("interpreter: " + what);
}

// Strides (in elements) of a row-major tensor of shape `s` as seen from a
// broadcast result of shape `out`: 0 along stretched or missing dims.
std::vector<int64_t> broadcastStrides(const ir::Shape& s, const ir::Shape& out);

// The element type of a tensor type (float for Tensor, double for Tensor64).
template <typename TensorT>
using Elem = typename decltype(TensorT::data)::value_type;

// out[i] = f(a[ia], b[ib]) over the broadcast index space; the innermost dim
// is a strided loop, the outer dims advance like an odometer.
template <typename TensorT, typename F>
TensorT broadcastBinary(const TensorT& a, const TensorT& b, F f) {
  using T = Elem<TensorT>;
  ir::Shape outShape;
  if (!ir::broadcastShapes(a.shape, b.shape, outShape).empty()) internalError("binary operands do not broadcast");
  TensorT out(outShape);
  if (out.size() == 0) return out;
  if (outShape.empty()) {  // two scalars
    out.data[0] = f(a.data[0], b.data[0]);
    return out;
  }
  std::vector<int64_t> sa = broadcastStrides(a.shape, outShape);
  std::vector<int64_t> sb = broadcastStrides(b.shape, outShape);
  size_t rank = outShape.size();
  int64_t inner = outShape.back();
  int64_t ia = sa.back(), ib = sb.back();
  std::vector<int64_t> idx(rank, 0);
  int64_t offA = 0, offB = 0;
  const T* pa = a.data.data();
  const T* pb = b.data.data();
  T* po = out.data.data();
  for (int64_t o = 0; o < out.size(); o += inner) {
    if (ia == 1 && ib == 1) {
      for (int64_t j = 0; j < inner; ++j) po[o + j] = f(pa[offA + j], pb[offB + j]);
    } else if (ia == 1 && ib == 0) {
      T y = pb[offB];
      for (int64_t j = 0; j < inner; ++j) po[o + j] = f(pa[offA + j], y);
    } else {
      for (int64_t j = 0; j < inner; ++j) po[o + j] = f(pa[offA + j * ia], pb[offB + j * ib]);
    }
    for (size_t d = rank - 1; d-- > 0;) {  // next outer index
      offA += sa[d];
      offB += sb[d];
      if (++idx[d] < outShape[d]) break;
      offA -= sa[d] * outShape[d];
      offB -= sb[d] * outShape[d];
      idx[d] = 0;
    }
  }
  return out;
}

template <typename TensorT, typename F>
TensorT mapUnary(const TensorT& a, F f) {
  TensorT out(a.shape);
  for (size_t i = 0; i < a.data.size(); ++i) out.data[i] = f(a.data[i]);
  return out;
}

// exp square sqrt rsqrt silu gelu relu neg abs tanh sigmoid log.
template <typename TensorT>
TensorT unary(ir::OpKind kind, const TensorT& a) {
  using T = Elem<TensorT>;
  using ir::OpKind;
  switch (kind) {
    case OpKind::Exp: return mapUnary(a, [](T x) { return std::exp(x); });
    case OpKind::Square: return mapUnary(a, [](T x) { return x * x; });
    case OpKind::Sqrt: return mapUnary(a, [](T x) { return std::sqrt(x); });
    case OpKind::Rsqrt: return mapUnary(a, [](T x) { return T(1) / std::sqrt(x); });
    // silu(x) = x·σ(x) = x / (1 + e^-x).
    case OpKind::Silu: return mapUnary(a, [](T x) { return x / (T(1) + std::exp(-x)); });
    // The exact gelu: x·Φ(x) = x/2 · (1 + erf(x/√2)).
    case OpKind::Gelu:
      return mapUnary(a, [](T x) {
        return T(0.5) * x * (T(1) + std::erf(x * static_cast<T>(0.70710678118654752440L)));
      });
    // max(x, 0); NaN stays NaN.
    case OpKind::Relu: return mapUnary(a, [](T x) { return x < T(0) ? T(0) : x; });
    case OpKind::Neg: return mapUnary(a, [](T x) { return -x; });
    case OpKind::Abs: return mapUnary(a, [](T x) { return std::fabs(x); });
    case OpKind::Tanh: return mapUnary(a, [](T x) { return std::tanh(x); });
    // sigmoid(x) = 1 / (1 + e^-x).
    case OpKind::Sigmoid: return mapUnary(a, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
    case OpKind::Log: return mapUnary(a, [](T x) { return std::log(x); });
    MIRAGE_CASES_NOT_UNARY break;
  }
  internalError("not a unary operator");  // callers dispatch on the category
}

// add sub mul div maximum minimum with NumPy broadcasting (a rank-0 tensor
// is a scalar).
template <typename TensorT>
TensorT binary(ir::OpKind kind, const TensorT& a, const TensorT& b) {
  using T = Elem<TensorT>;
  using ir::OpKind;
  switch (kind) {
    case OpKind::Add: return broadcastBinary(a, b, [](T x, T y) { return x + y; });
    case OpKind::Sub: return broadcastBinary(a, b, [](T x, T y) { return x - y; });
    case OpKind::Mul: return broadcastBinary(a, b, [](T x, T y) { return x * y; });
    case OpKind::Div: return broadcastBinary(a, b, [](T x, T y) { return x / y; });
    // NaN propagates, as in NumPy (and as reduce_max and mg_max do).
    case OpKind::Maximum: return broadcastBinary(a, b, [](T x, T y) { return (y > x || std::isnan(y)) ? y : x; });
    case OpKind::Minimum: return broadcastBinary(a, b, [](T x, T y) { return (y < x || std::isnan(y)) ? y : x; });
    MIRAGE_CASES_NOT_BINARY break;
  }
  internalError("not a binary operator");  // callers dispatch on the category
}

// The rows of a matmul's result computed together: about half of a core's
// L2, so that they stay there while the rows of B stream past.
inline constexpr int64_t kMatmulRowBlockBytes = int64_t{512} << 10;

// A[..., m, k] · B[..., k, n], batch dims broadcast; each result element
// adds its k products in order, in the element type.
template <typename TensorT>
TensorT matmul(const TensorT& a, const TensorT& b) {
  using T = Elem<TensorT>;
  if (a.rank() < 2 || b.rank() < 2) internalError("matmul operand of rank < 2");
  int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  int64_t k2 = b.shape[b.shape.size() - 2], n = b.shape.back();
  if (k != k2) internalError("matmul inner dims differ");
  ir::Shape batchA(a.shape.begin(), a.shape.end() - 2), batchB(b.shape.begin(), b.shape.end() - 2);
  ir::Shape batch;
  if (!ir::broadcastShapes(batchA, batchB, batch).empty()) internalError("matmul batch dims");
  // Strides in whole matrices, 0 along broadcast batch dims.
  std::vector<int64_t> sa = broadcastStrides(batchA, batch);
  std::vector<int64_t> sb = broadcastStrides(batchB, batch);
  ir::Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  TensorT out(outShape);
  int64_t batches = ir::numElements(batch);
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t t = 0; t < batches; ++t) {
    int64_t ma = 0, mb = 0, rest = t;
    for (size_t d = batch.size(); d-- > 0;) {
      idx[d] = rest % batch[d];
      rest /= batch[d];
    }
    for (size_t d = 0; d < batch.size(); ++d) {
      ma += idx[d] * sa[d];
      mb += idx[d] * sb[d];
    }
    const T* A = a.data.data() + ma * m * k;
    const T* B = b.data.data() + mb * k * n;
    T* C = out.data.data() + t * m * n;
    // C[i, :] += A[i, p] * B[p, :]: the inner loop runs along rows of B and
    // C, contiguous. Rows of C are taken in blocks that stay in cache
    // (kMatmulRowBlockBytes) and each row of B is applied to the whole
    // block, so B is read once per block rather than once per row: a
    // 16 x 4096 by 4096 x 6144 product streamed 100 MB of B sixteen times.
    // Every element still adds its products in the order of p.
    // (dense_matmul.cpp: compiled for the machine's vector width.)
    const int64_t rowBytes = std::max<int64_t>(1, n * static_cast<int64_t>(sizeof(T)));
    const int64_t block = std::max<int64_t>(1, kMatmulRowBlockBytes / rowBytes);
    matmulRowBlocks(A, B, C, m, k, n, block);
  }
  return out;
}

// reduce_sum / reduce_mean / reduce_max over `dim` down to extent `size`
// (size > 1 only for reduce_sum: out[..c..] = sum_j A[..c + size*j..]).
template <typename TensorT>
TensorT reduce(ir::OpKind kind, const TensorT& a, int dim, int64_t size) {
  using T = Elem<TensorT>;
  if (dim < 0 || dim >= a.rank()) internalError("reduction dim out of range");
  // View a as [outer, n, inner] with n the reduced extent; the result is
  // [outer, size, inner], and element c of the reduced dim collects
  // a[.., c + size*j, ..] for j = 0 .. n/size - 1.
  int64_t n = a.shape[static_cast<size_t>(dim)];
  if (size < 1 || n % size != 0) internalError("reduction size does not divide the extent");
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= a.shape[static_cast<size_t>(d)];
  for (int d = dim + 1; d < a.rank(); ++d) inner *= a.shape[static_cast<size_t>(d)];
  ir::Shape outShape = a.shape;
  outShape[static_cast<size_t>(dim)] = size;
  bool isMax = kind == ir::OpKind::ReduceMax;
  if (!isMax && kind != ir::OpKind::ReduceSum && kind != ir::OpKind::ReduceMean) internalError("not a reduction");
  TensorT out(outShape, isMax ? -std::numeric_limits<T>::infinity() : T(0));
  const T* src = a.data.data();
  T* dst = out.data.data();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n / size; ++j)
      for (int64_t c = 0; c < size; ++c) {
        const T* in = src + (o * n + c + size * j) * inner;
        T* acc = dst + (o * size + c) * inner;
        if (isMax) {
          // NaN propagates, as in NumPy.
          for (int64_t i = 0; i < inner; ++i)
            if (in[i] > acc[i] || std::isnan(in[i])) acc[i] = in[i];
        } else {
          for (int64_t i = 0; i < inner; ++i) acc[i] += in[i];
        }
      }
  if (kind == ir::OpKind::ReduceMean) {
    T count = static_cast<T>(n);
    for (T& x : out.data) x /= count;
  }
  return out;
}

template <typename TensorT>
TensorT transpose(const TensorT& a, int dim0, int dim1) {
  if (dim0 < 0 || dim0 >= a.rank() || dim1 < 0 || dim1 >= a.rank()) internalError("transpose dim out of range");
  ir::Shape outShape = a.shape;
  std::swap(outShape[static_cast<size_t>(dim0)], outShape[static_cast<size_t>(dim1)]);
  // Input strides permuted into the result's dim order.
  std::vector<int64_t> inStride(a.shape.size());
  int64_t s = 1;
  for (size_t d = a.shape.size(); d-- > 0;) {
    inStride[d] = s;
    s *= a.shape[d];
  }
  std::swap(inStride[static_cast<size_t>(dim0)], inStride[static_cast<size_t>(dim1)]);
  TensorT out(outShape);
  std::vector<int64_t> idx(outShape.size(), 0);
  int64_t off = 0;
  for (int64_t o = 0; o < out.size(); ++o) {
    out.data[static_cast<size_t>(o)] = a.data[static_cast<size_t>(off)];
    for (size_t d = outShape.size(); d-- > 0;) {
      off += inStride[d];
      if (++idx[d] < outShape[d]) break;
      off -= inStride[d] * outShape[d];
      idx[d] = 0;
    }
  }
  return out;
}

// reshape, concat, slice: `op.inputs.size()` operands; elements are moved,
// never changed (ir/layout.h).
template <typename TensorT>
TensorT layout(const ir::Op& op, const TensorT* const* x) {
  std::vector<ir::Shape> shapes;
  std::vector<const Elem<TensorT>*> data;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    shapes.push_back(x[i]->shape);
    data.push_back(x[i]->data.data());
  }
  ir::Op attrs = op;  // inferLayoutShape normalizes in place
  ir::Shape outShape;
  if (std::string e = ir::inferLayoutShape(attrs, shapes, outShape); !e.empty()) internalError(e);
  TensorT out(outShape);
  ir::applyLayout(ir::LayoutMap(attrs, shapes, outShape), data, out.data.data());
  return out;
}

}  // namespace mirage::interp::dense
