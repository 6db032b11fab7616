// The pre-defined operators on host tensors; see ops.h. Loops are written so
// that the innermost one walks contiguous memory (matmul in i-k-j order,
// broadcasting with per-dim strides) since the examples run at full size.
#include "ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"

namespace mirage::interp::detail {
namespace {

using ir::OpKind;
using ir::Shape;

[[noreturn]] void internalError(const std::string& what) {
  throw std::logic_error("interpreter: " + what);
}

// Strides (in elements) of a row-major tensor of shape `s` as seen from a
// broadcast result of shape `out`: 0 along stretched or missing dims.
std::vector<int64_t> broadcastStrides(const Shape& s, const Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  size_t lead = out.size() - s.size();
  for (size_t i = s.size(); i-- > 0;) {
    strides[lead + i] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return strides;
}

// out[i] = f(a[ia], b[ib]) over the broadcast index space; the innermost dim
// is a strided loop, the outer dims advance like an odometer.
template <typename F>
Tensor broadcastBinary(const Tensor& a, const Tensor& b, F f) {
  Shape outShape;
  if (!ir::broadcastShapes(a.shape, b.shape, outShape).empty())
    internalError("binary operands do not broadcast");
  Tensor out(outShape);
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
  const float* pa = a.data.data();
  const float* pb = b.data.data();
  float* po = out.data.data();
  for (int64_t o = 0; o < out.size(); o += inner) {
    if (ia == 1 && ib == 1) {
      for (int64_t j = 0; j < inner; ++j) po[o + j] = f(pa[offA + j], pb[offB + j]);
    } else if (ia == 1 && ib == 0) {
      float y = pb[offB];
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

template <typename F>
Tensor mapUnary(const Tensor& a, F f) {
  Tensor out(a.shape);
  for (int64_t i = 0; i < a.size(); ++i) out.data[static_cast<size_t>(i)] = f(a.data[static_cast<size_t>(i)]);
  return out;
}

}  // namespace

Tensor unaryOp(OpKind kind, const Tensor& a) {
  switch (kind) {
    case OpKind::Exp: return mapUnary(a, [](float x) { return std::exp(x); });
    case OpKind::Square: return mapUnary(a, [](float x) { return x * x; });
    case OpKind::Sqrt: return mapUnary(a, [](float x) { return std::sqrt(x); });
    case OpKind::Rsqrt: return mapUnary(a, [](float x) { return 1.0f / std::sqrt(x); });
    // silu(x) = x·σ(x) = x / (1 + e^-x).
    case OpKind::Silu: return mapUnary(a, [](float x) { return x / (1.0f + std::exp(-x)); });
    // The exact gelu: x·Φ(x) = x/2 · (1 + erf(x/√2)).
    case OpKind::Gelu:
      return mapUnary(a, [](float x) {
        return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752440f));
      });
    // max(x, 0); NaN stays NaN.
    case OpKind::Relu: return mapUnary(a, [](float x) { return x < 0.0f ? 0.0f : x; });
    case OpKind::Neg: return mapUnary(a, [](float x) { return -x; });
    case OpKind::Abs: return mapUnary(a, [](float x) { return std::fabs(x); });
    case OpKind::Tanh: return mapUnary(a, [](float x) { return std::tanh(x); });
    // sigmoid(x) = 1 / (1 + e^-x).
    case OpKind::Sigmoid: return mapUnary(a, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    case OpKind::Log: return mapUnary(a, [](float x) { return std::log(x); });
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_CONTRACTION
    MIRAGE_CASES_BINARY
    MIRAGE_CASES_REDUCTION
    MIRAGE_CASES_LAYOUT
    MIRAGE_CASES_PROGRAM_LAYOUT
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  internalError("not a unary operator");
}

Tensor binaryOp(OpKind kind, const Tensor& a, const Tensor& b) {
  switch (kind) {
    case OpKind::Add: return broadcastBinary(a, b, [](float x, float y) { return x + y; });
    case OpKind::Sub: return broadcastBinary(a, b, [](float x, float y) { return x - y; });
    case OpKind::Mul: return broadcastBinary(a, b, [](float x, float y) { return x * y; });
    case OpKind::Div: return broadcastBinary(a, b, [](float x, float y) { return x / y; });
    // NaN propagates, as in NumPy (and as reduce_max and mg_max do).
    case OpKind::Maximum:
      return broadcastBinary(a, b, [](float x, float y) { return (y > x || std::isnan(y)) ? y : x; });
    case OpKind::Minimum:
      return broadcastBinary(a, b, [](float x, float y) { return (y < x || std::isnan(y)) ? y : x; });
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_CONTRACTION
    MIRAGE_CASES_UNARY
    MIRAGE_CASES_REDUCTION
    MIRAGE_CASES_LAYOUT
    MIRAGE_CASES_PROGRAM_LAYOUT
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  internalError("not a binary operator");
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (a.rank() < 2 || b.rank() < 2) internalError("matmul operand of rank < 2");
  int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  int64_t k2 = b.shape[b.shape.size() - 2], n = b.shape.back();
  if (k != k2) internalError("matmul inner dims differ");
  Shape batchA(a.shape.begin(), a.shape.end() - 2), batchB(b.shape.begin(), b.shape.end() - 2);
  Shape batch;
  if (!ir::broadcastShapes(batchA, batchB, batch).empty()) internalError("matmul batch dims");
  // Strides in whole matrices, 0 along broadcast batch dims.
  std::vector<int64_t> sa = broadcastStrides(batchA, batch);
  std::vector<int64_t> sb = broadcastStrides(batchB, batch);
  Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Tensor out(outShape);
  int64_t batches = ir::numElements(batch);
  for (int64_t t = 0; t < batches; ++t) {
    std::vector<int64_t> idx = unflatIndex(batch, t);
    int64_t ma = 0, mb = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      ma += idx[d] * sa[d];
      mb += idx[d] * sb[d];
    }
    const float* A = a.data.data() + ma * m * k;
    const float* B = b.data.data() + mb * k * n;
    float* C = out.data.data() + t * m * n;
    // C[i, :] += A[i, p] * B[p, :]: the inner loop runs along rows of B and
    // C, contiguous; each C element adds its k products in order, in f32.
    for (int64_t i = 0; i < m; ++i) {
      float* __restrict c = C + i * n;  // the result never aliases an operand
      for (int64_t p = 0; p < k; ++p) {
        float x = A[i * k + p];
        const float* __restrict r = B + p * n;
        for (int64_t j = 0; j < n; ++j) c[j] += x * r[j];
      }
    }
  }
  return out;
}

Tensor reduce(OpKind kind, const Tensor& a, int dim, int64_t size) {
  if (dim < 0 || dim >= a.rank()) internalError("reduction dim out of range");
  // View a as [outer, n, inner] with n the reduced extent; the result is
  // [outer, size, inner], and element c of the reduced dim collects
  // a[.., c + size*j, ..] for j = 0 .. n/size - 1.
  int64_t n = a.shape[static_cast<size_t>(dim)];
  if (size < 1 || n % size != 0) internalError("reduction size does not divide the extent");
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= a.shape[static_cast<size_t>(d)];
  for (int d = dim + 1; d < a.rank(); ++d) inner *= a.shape[static_cast<size_t>(d)];
  Shape outShape = a.shape;
  outShape[static_cast<size_t>(dim)] = size;
  bool isMax = kind == OpKind::ReduceMax;
  if (!isMax && kind != OpKind::ReduceSum && kind != OpKind::ReduceMean)
    internalError("not a reduction");
  Tensor out(outShape, isMax ? -std::numeric_limits<float>::infinity() : 0.0f);
  const float* src = a.data.data();
  float* dst = out.data.data();
  int64_t groups = n / size;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < groups; ++j) {
      for (int64_t c = 0; c < size; ++c) {
        const float* in = src + (o * n + c + size * j) * inner;
        float* acc = dst + (o * size + c) * inner;
        if (isMax) {
          // NaN propagates, as in NumPy.
          for (int64_t i = 0; i < inner; ++i)
            if (in[i] > acc[i] || std::isnan(in[i])) acc[i] = in[i];
        } else {
          for (int64_t i = 0; i < inner; ++i) acc[i] += in[i];
        }
      }
    }
  }
  if (kind == OpKind::ReduceMean) {
    float count = static_cast<float>(n);
    for (float& x : out.data) x /= count;
  }
  return out;
}

Tensor transpose(const Tensor& a, int dim0, int dim1) {
  if (dim0 < 0 || dim0 >= a.rank() || dim1 < 0 || dim1 >= a.rank())
    internalError("transpose dim out of range");
  Shape outShape = a.shape;
  std::swap(outShape[static_cast<size_t>(dim0)], outShape[static_cast<size_t>(dim1)]);
  // Input strides permuted into the result's dim order.
  std::vector<int64_t> inStride(a.shape.size());
  int64_t s = 1;
  for (size_t d = a.shape.size(); d-- > 0;) {
    inStride[d] = s;
    s *= a.shape[d];
  }
  std::swap(inStride[static_cast<size_t>(dim0)], inStride[static_cast<size_t>(dim1)]);
  Tensor out(outShape);
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

Tensor layout(const ir::Op& op, const Tensor* const* x) {
  std::vector<Shape> shapes;
  std::vector<const float*> data;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    shapes.push_back(x[i]->shape);
    data.push_back(x[i]->data.data());
  }
  ir::Op attrs = op;  // inferLayoutShape normalizes in place
  Shape outShape;
  if (std::string e = ir::inferLayoutShape(attrs, shapes, outShape); !e.empty()) internalError(e);
  Tensor out(outShape);
  ir::applyLayout(ir::LayoutMap(attrs, shapes, outShape), data, out.data.data());
  return out;
}

Tensor applyOp(const ir::Op& op, const Tensor* const* x) {
  switch (op.kind) {
    MIRAGE_CASES_UNARY return unaryOp(op.kind, *x[0]);
    MIRAGE_CASES_BINARY return binaryOp(op.kind, *x[0], *x[1]);
    MIRAGE_CASES_REDUCTION return reduce(op.kind, *x[0], op.dim, op.size);
    case OpKind::Matmul: return matmul(*x[0], *x[1]);
    case OpKind::Transpose: return transpose(*x[0], op.dim, op.dim1);
    MIRAGE_CASES_PROGRAM_LAYOUT return layout(op, x);
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  internalError(std::string("'") + std::string(ir::opName(op.kind)) + "' is not a pre-defined operator");
}

}  // namespace mirage::interp::detail
