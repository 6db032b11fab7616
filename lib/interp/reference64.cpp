// The float64 reference evaluator (reference64.h). It follows the
// program-level loop of interpreter.cpp's `evaluate` and the operator
// definitions of ops.cpp, in double and without rounding. It is a separate
// file, not a precision parameter of ops.cpp, because those operators are
// f32 by contract (tiles inside kernel bodies) and tuned for it; sharing them
// would mean templating ops.cpp on the element type, a change best made
// when no one else is editing it. Speed matters less here: the reference of
// each magnitude is computed once per mirage-opt run.
#include "mirage/interp/reference64.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "mirage/interp/interpreter.h"
#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"

namespace mirage::interp {
namespace {

using ir::OpKind;
using ir::Shape;

[[noreturn]] void internalError(const std::string& what) {
  throw std::logic_error("reference64: " + what);
}

size_t at(ir::ValueId v) { return static_cast<size_t>(v); }

// Strides of a row-major `s` seen from the broadcast shape `out` (0 along
// stretched or missing dims), as in ops.cpp.
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

template <typename F>
Tensor64 mapUnary(const Tensor64& a, F f) {
  Tensor64 out(a.shape);
  for (size_t i = 0; i < a.data.size(); ++i) out.data[i] = f(a.data[i]);
  return out;
}

template <typename F>
Tensor64 broadcastBinary(const Tensor64& a, const Tensor64& b, F f) {
  Shape outShape;
  if (!ir::broadcastShapes(a.shape, b.shape, outShape).empty()) internalError("operands do not broadcast");
  Tensor64 out(outShape);
  if (outShape.empty()) {
    out.data[0] = f(a.data[0], b.data[0]);
    return out;
  }
  std::vector<int64_t> sa = broadcastStrides(a.shape, outShape), sb = broadcastStrides(b.shape, outShape);
  size_t rank = outShape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t offA = 0, offB = 0;
  for (int64_t o = 0; o < out.size(); ++o) {
    out.data[static_cast<size_t>(o)] = f(a.data[static_cast<size_t>(offA)], b.data[static_cast<size_t>(offB)]);
    for (size_t d = rank; d-- > 0;) {  // odometer over the result's index
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

Tensor64 unary(OpKind kind, const Tensor64& a) {
  switch (kind) {
    case OpKind::Exp: return mapUnary(a, [](double x) { return std::exp(x); });
    case OpKind::Square: return mapUnary(a, [](double x) { return x * x; });
    case OpKind::Sqrt: return mapUnary(a, [](double x) { return std::sqrt(x); });
    case OpKind::Rsqrt: return mapUnary(a, [](double x) { return 1.0 / std::sqrt(x); });
    case OpKind::Silu: return mapUnary(a, [](double x) { return x / (1.0 + std::exp(-x)); });
    case OpKind::Gelu:
      return mapUnary(a, [](double x) { return 0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440)); });
    case OpKind::Relu: return mapUnary(a, [](double x) { return x < 0.0 ? 0.0 : x; });
    case OpKind::Neg: return mapUnary(a, [](double x) { return -x; });
    case OpKind::Abs: return mapUnary(a, [](double x) { return std::fabs(x); });
    case OpKind::Tanh: return mapUnary(a, [](double x) { return std::tanh(x); });
    case OpKind::Sigmoid: return mapUnary(a, [](double x) { return 1.0 / (1.0 + std::exp(-x)); });
    case OpKind::Log: return mapUnary(a, [](double x) { return std::log(x); });
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
  internalError("not a unary operator");  // callers dispatch on the category
}

Tensor64 binary(OpKind kind, const Tensor64& a, const Tensor64& b) {
  switch (kind) {
    case OpKind::Add: return broadcastBinary(a, b, [](double x, double y) { return x + y; });
    case OpKind::Sub: return broadcastBinary(a, b, [](double x, double y) { return x - y; });
    case OpKind::Mul: return broadcastBinary(a, b, [](double x, double y) { return x * y; });
    case OpKind::Div: return broadcastBinary(a, b, [](double x, double y) { return x / y; });
    case OpKind::Maximum:
      return broadcastBinary(a, b, [](double x, double y) { return (y > x || std::isnan(y)) ? y : x; });
    case OpKind::Minimum:
      return broadcastBinary(a, b, [](double x, double y) { return (y < x || std::isnan(y)) ? y : x; });
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
  internalError("not a binary operator");  // callers dispatch on the category
}

Tensor64 matmul(const Tensor64& a, const Tensor64& b) {
  if (a.rank() < 2 || b.rank() < 2) internalError("matmul operand of rank < 2");
  int64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  int64_t n = b.shape.back();
  if (b.shape[b.shape.size() - 2] != k) internalError("matmul inner dims differ");
  Shape batchA(a.shape.begin(), a.shape.end() - 2), batchB(b.shape.begin(), b.shape.end() - 2), batch;
  if (!ir::broadcastShapes(batchA, batchB, batch).empty()) internalError("matmul batch dims");
  std::vector<int64_t> sa = broadcastStrides(batchA, batch), sb = broadcastStrides(batchB, batch);
  Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  Tensor64 out(outShape);
  for (int64_t t = 0; t < ir::numElements(batch); ++t) {
    std::vector<int64_t> idx = unflatIndex(batch, t);
    int64_t ma = 0, mb = 0;
    for (size_t d = 0; d < batch.size(); ++d) {
      ma += idx[d] * sa[d];
      mb += idx[d] * sb[d];
    }
    const double* A = a.data.data() + ma * m * k;
    const double* B = b.data.data() + mb * k * n;
    double* C = out.data.data() + t * m * n;
    for (int64_t i = 0; i < m; ++i)  // i-k-j: the inner loop walks rows of B and C
      for (int64_t p = 0; p < k; ++p) {
        double x = A[i * k + p];
        const double* r = B + p * n;
        double* c = C + i * n;
        for (int64_t j = 0; j < n; ++j) c[j] += x * r[j];
      }
  }
  return out;
}

// reduce_sum / reduce_mean / reduce_max over `dim` down to extent `size`:
// element c of the reduced dim collects a[.., c + size*j, ..] (ops.cpp).
Tensor64 reduce(OpKind kind, const Tensor64& a, int dim, int64_t size) {
  if (dim < 0 || dim >= a.rank()) internalError("reduction dim out of range");
  int64_t n = a.shape[static_cast<size_t>(dim)];
  if (size < 1 || n % size != 0) internalError("reduction size does not divide the extent");
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < dim; ++d) outer *= a.shape[static_cast<size_t>(d)];
  for (int d = dim + 1; d < a.rank(); ++d) inner *= a.shape[static_cast<size_t>(d)];
  Shape outShape = a.shape;
  outShape[static_cast<size_t>(dim)] = size;
  bool isMax = kind == OpKind::ReduceMax;
  Tensor64 out(outShape, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n / size; ++j)
      for (int64_t c = 0; c < size; ++c) {
        const double* in = a.data.data() + (o * n + c + size * j) * inner;
        double* acc = out.data.data() + (o * size + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          if (!isMax)
            acc[i] += in[i];
          else if (in[i] > acc[i] || std::isnan(in[i]))
            acc[i] = in[i];
        }
      }
  if (kind == OpKind::ReduceMean)
    for (double& x : out.data) x /= static_cast<double>(n);
  return out;
}

Tensor64 transpose(const Tensor64& a, int dim0, int dim1) {
  Shape outShape = a.shape;
  std::swap(outShape[static_cast<size_t>(dim0)], outShape[static_cast<size_t>(dim1)]);
  Tensor64 out(outShape);
  for (int64_t o = 0; o < out.size(); ++o) {
    std::vector<int64_t> idx = unflatIndex(outShape, o);
    std::swap(idx[static_cast<size_t>(dim0)], idx[static_cast<size_t>(dim1)]);
    out.data[static_cast<size_t>(o)] = a.data[static_cast<size_t>(flatIndex(a.shape, idx))];
  }
  return out;
}

Tensor64 scalar(double v) {
  Tensor64 t(Shape{});
  t.data[0] = v;
  return t;
}

}  // namespace

std::vector<Tensor64> evaluate64(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  if (inputs.size() != g.inputs.size())
    throw EvalError(fmt::format("program '{}' has {} inputs, {} given", g.name, g.inputs.size(), inputs.size()));
  std::vector<Tensor64> vals(g.values.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = g.value(g.inputs[i]);
    if (inputs[i].shape != v.shape || inputs[i].size() != ir::numElements(v.shape))
      throw EvalError(fmt::format("input '{}' has shape {}, expected {}", v.name, ir::shapeToString(inputs[i].shape),
                                  ir::shapeToString(v.shape)));
    Tensor64 t(v.shape);
    for (size_t e = 0; e < t.data.size(); ++e) t.data[e] = inputs[i].data[e];
    vals[at(g.inputs[i])] = std::move(t);
  }
  // Free each value after its last use, as `evaluate` does.
  std::vector<int> lastUse(g.values.size(), -1);
  for (size_t i = 0; i < g.ops.size(); ++i)
    for (ir::ValueId in : g.ops[i].inputs) lastUse[at(in)] = static_cast<int>(i);
  for (ir::ValueId out : g.outputs) lastUse[at(out)] = static_cast<int>(g.ops.size());

  for (size_t i = 0; i < g.ops.size(); ++i) {
    const ir::Op& op = g.ops[i];
    auto operand = [&](size_t k) -> const Tensor64& {
      const Tensor64& t = vals[at(op.inputs.at(k))];
      if (t.data.empty()) internalError("operand used before it is computed");
      return t;
    };
    Tensor64 result;
    switch (op.kind) {
      case OpKind::Input: continue;  // set above
      case OpKind::Const: result = scalar(op.scalar); break;
      case OpKind::Matmul: result = matmul(operand(0), operand(1)); break;
      MIRAGE_CASES_BINARY result = binary(op.kind, operand(0), operand(1)); break;
      MIRAGE_CASES_UNARY result = unary(op.kind, operand(0)); break;
      MIRAGE_CASES_REDUCTION result = reduce(op.kind, operand(0), op.dim, op.size); break;
      case OpKind::Transpose: result = transpose(operand(0), op.dim, op.dim1); break;
      case OpKind::Reshape:
      case OpKind::Concat:
      case OpKind::Slice: {
        std::vector<ir::Shape> shapes;
        std::vector<const double*> data;
        for (size_t k = 0; k < op.inputs.size(); ++k) {
          shapes.push_back(operand(k).shape);
          data.push_back(operand(k).data.data());
        }
        const ir::Shape& outShape = g.value(op.results[0]).shape;
        result = Tensor64(outShape);
        ir::applyLayout(ir::LayoutMap(op, shapes, outShape), data, result.data.data());
        break;
      }
      case OpKind::Kernel:
        throw EvalError(fmt::format("program '{}' has a custom kernel: the float64 reference evaluates programs of "
                                    "pre-defined operators only",
                                    g.name));
      case OpKind::Tile:
      case OpKind::Accum:
      case OpKind::Scan:
      case OpKind::Save: internalError("block-level operator at program level");
      MIRAGE_CASES_SHORTHAND internalError("unexpanded shorthand");
    }
    vals[at(op.results[0])] = std::move(result);
    for (ir::ValueId in : op.inputs)
      if (lastUse[at(in)] == static_cast<int>(i)) vals[at(in)] = Tensor64();
  }
  std::vector<Tensor64> outputs;
  for (ir::ValueId out : g.outputs) outputs.push_back(vals[at(out)]);
  return outputs;
}

}  // namespace mirage::interp
