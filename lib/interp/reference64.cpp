// The float64 reference evaluator (reference64.h). It follows the
// program-level loop of interpreter.cpp's `evaluate`, in double and without
// rounding; the operators are dense_ops.h's, the ones the interpreter runs
// in f32, instantiated for double.
#include "mirage/interp/reference64.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "mirage/interp/interpreter.h"
#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"
#include "dense_ops.h"

namespace mirage::interp {
namespace {

using ir::OpKind;
using ir::Shape;

[[noreturn]] void internalError(const std::string& what) {
  throw std::logic_error("reference64: " + what);
}

size_t at(ir::ValueId v) { return static_cast<size_t>(v); }

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
      case OpKind::Matmul: result = dense::matmul(operand(0), operand(1)); break;
      MIRAGE_CASES_BINARY result = dense::binary(op.kind, operand(0), operand(1)); break;
      MIRAGE_CASES_UNARY result = dense::unary(op.kind, operand(0)); break;
      MIRAGE_CASES_REDUCTION result = dense::reduce(op.kind, operand(0), op.dim, op.size); break;
      case OpKind::Transpose: result = dense::transpose(operand(0), op.dim, op.dim1); break;
      case OpKind::Reshape:
      case OpKind::Concat:
      case OpKind::Slice: {
        std::vector<const Tensor64*> operands;
        for (size_t k = 0; k < op.inputs.size(); ++k) operands.push_back(&operand(k));
        result = dense::layout(op, operands.data());
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
