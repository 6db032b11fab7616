// evaluate64 (reference64.h): each operator on whole tensors in double, by
// full index arithmetic; the programs are small, so clarity over speed.
#include "reference64.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "mirage/ir/check.h"

namespace mirage::fuzz {
namespace {

using ir::OpKind;
using ir::Shape;

Tensor64 make(Shape s, double fill = 0) {
  Tensor64 t;
  t.data.assign(static_cast<size_t>(ir::numElements(s)), fill);
  t.shape = std::move(s);
  return t;
}

// Offset in `s` of the index `idx` of a broadcast result of rank idx.size().
int64_t broadcastOffset(const Shape& s, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  size_t lead = idx.size() - s.size();
  for (size_t d = 0; d < s.size(); ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[lead + d]);
  return off;
}

double unary(OpKind k, double x) {
  switch (k) {
    case OpKind::Exp: return std::exp(x);
    case OpKind::Square: return x * x;
    case OpKind::Sqrt: return std::sqrt(x);
    case OpKind::Rsqrt: return 1 / std::sqrt(x);
    case OpKind::Silu: return x / (1 + std::exp(-x));
    case OpKind::Gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case OpKind::Relu: return x < 0 ? 0 : x;
    default: throw std::logic_error("reference64: not a unary operator");
  }
}

double binary(OpKind k, double a, double b) {
  switch (k) {
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Mul: return a * b;
    case OpKind::Div: return a / b;
    default: throw std::logic_error("reference64: not a binary operator");
  }
}

Tensor64 apply(const ir::Op& op, const std::vector<const Tensor64*>& x, const Shape& outShape) {
  Tensor64 out = make(outShape);
  int64_t n = static_cast<int64_t>(out.data.size());
  if (ir::isElementwiseUnary(op.kind)) {
    for (int64_t i = 0; i < n; ++i) out.data[static_cast<size_t>(i)] = unary(op.kind, x[0]->data[static_cast<size_t>(i)]);
    return out;
  }
  if (ir::isElementwiseBinary(op.kind)) {
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> idx = interp::unflatIndex(outShape, i);
      double a = x[0]->data[static_cast<size_t>(broadcastOffset(x[0]->shape, idx))];
      double b = x[1]->data[static_cast<size_t>(broadcastOffset(x[1]->shape, idx))];
      out.data[static_cast<size_t>(i)] = binary(op.kind, a, b);
    }
    return out;
  }
  if (ir::isReduction(op.kind)) {
    // Element c of the reduced dim collects a[.., c + size*j, ..] (the
    // interpreter's definition of a partial reduction).
    const Tensor64& a = *x[0];
    bool isMax = op.kind == OpKind::ReduceMax;
    if (isMax) std::fill(out.data.begin(), out.data.end(), -std::numeric_limits<double>::infinity());
    int64_t extent = a.shape[static_cast<size_t>(op.dim)];
    for (int64_t i = 0; i < static_cast<int64_t>(a.data.size()); ++i) {
      std::vector<int64_t> idx = interp::unflatIndex(a.shape, i);
      idx[static_cast<size_t>(op.dim)] %= op.size;
      double v = a.data[static_cast<size_t>(i)];
      double& acc = out.data[static_cast<size_t>(interp::flatIndex(outShape, idx))];
      if (isMax) acc = (v > acc || std::isnan(v)) ? v : acc;
      else acc += v;
    }
    if (op.kind == OpKind::ReduceMean)
      for (double& v : out.data) v /= static_cast<double>(extent);
    return out;
  }
  switch (op.kind) {
    case OpKind::Matmul: {
      const Tensor64 &a = *x[0], &b = *x[1];
      int64_t k = a.shape.back();
      size_t r = outShape.size();
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> idx = interp::unflatIndex(outShape, i);
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          std::vector<int64_t> ia = idx, ib = idx;
          ia[r - 1] = p;
          ib[r - 2] = p;
          sum += a.data[static_cast<size_t>(broadcastOffset(a.shape, ia))] *
                 b.data[static_cast<size_t>(broadcastOffset(b.shape, ib))];
        }
        out.data[static_cast<size_t>(i)] = sum;
      }
      return out;
    }
    case OpKind::Transpose:
      for (int64_t i = 0; i < n; ++i) {
        std::vector<int64_t> idx = interp::unflatIndex(outShape, i);
        std::swap(idx[static_cast<size_t>(op.dim)], idx[static_cast<size_t>(op.dim1)]);
        out.data[static_cast<size_t>(i)] = x[0]->data[static_cast<size_t>(interp::flatIndex(x[0]->shape, idx))];
      }
      return out;
    default: throw std::logic_error("reference64: not a pre-defined operator");
  }
}

}  // namespace

std::vector<Tensor64> evaluate64(const ir::Graph& g, const std::vector<interp::Tensor>& inputs) {
  if (inputs.size() != g.inputs.size()) throw std::logic_error("reference64: wrong number of inputs");
  std::vector<Tensor64> values(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].shape != g.value(g.inputs[i]).shape) throw std::logic_error("reference64: input shape");
    Tensor64& t = values[static_cast<size_t>(g.inputs[i])];
    t.shape = inputs[i].shape;
    t.data.assign(inputs[i].data.begin(), inputs[i].data.end());
  }
  for (const ir::Op& op : g.ops) {
    if (op.kind == OpKind::Input) continue;
    if (op.kind == OpKind::Const) {
      values[static_cast<size_t>(op.results[0])] = make(Shape{}, op.scalar);
      continue;
    }
    if (op.kind == OpKind::Kernel) throw std::logic_error("reference64: custom kernels are not supported");
    std::vector<const Tensor64*> x;
    for (ir::ValueId in : op.inputs) x.push_back(&values[static_cast<size_t>(in)]);
    values[static_cast<size_t>(op.results[0])] = apply(op, x, g.value(op.results[0]).shape);
  }
  std::vector<Tensor64> out;
  for (ir::ValueId o : g.outputs) out.push_back(values[static_cast<size_t>(o)]);
  return out;
}

}  // namespace mirage::fuzz
