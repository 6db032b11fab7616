// Basic queries on the IR: names of dtypes and operators, shapes, lookups.
#include "mirage/ir/graph.h"

#include <fmt/format.h>

namespace mirage::ir {

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
  }
  return "?";
}

std::optional<DType> dtypeFromName(std::string_view s) {
  if (s == "f16") return DType::F16;
  if (s == "bf16") return DType::BF16;
  if (s == "f32") return DType::F32;
  return std::nullopt;
}

int dtypeBytes(DType t) { return t == DType::F32 ? 4 : 2; }

int64_t numElements(const Shape& s) {
  int64_t n = 1;
  for (int64_t e : s) n *= e;
  return n;
}

std::string shapeToString(const Shape& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

std::string_view opName(OpKind k) { return opInfo(k).name; }

std::optional<OpKind> opKindFromName(std::string_view name) {
  for (OpKind kind : allOpKinds()) {
    const OpInfo& info = opInfo(kind);
    if (info.category != OpCategory::Leaf && kind != OpKind::Kernel && info.name == name) return kind;
  }
  return std::nullopt;
}

bool isReservedName(std::string_view name) {
  for (std::string_view w : {"graph", "input", "output", "kernel"})
    if (name == w) return true;
  return opKindFromName(name).has_value();
}

ValueId Graph::findValue(std::string_view n) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == n) return static_cast<ValueId>(i);
  return kNoValue;
}

int Graph::appendOp(Op op, const std::vector<Shape>& resultShapes,
                    const std::vector<std::string>& resultNames) {
  int index = static_cast<int>(ops.size());
  op.results.clear();
  for (size_t i = 0; i < resultShapes.size(); ++i) {
    Value v;
    v.shape = resultShapes[i];
    v.name = i < resultNames.size() ? resultNames[i] : std::string();
    v.op = index;
    v.resultIndex = static_cast<int>(i);
    v.loc = op.loc;
    op.results.push_back(static_cast<ValueId>(values.size()));
    values.push_back(std::move(v));
  }
  ops.push_back(std::move(op));
  return index;
}

DType storageDType(const Graph& g, ValueId v) { return g.value(v).keepF32 ? DType::F32 : g.dtype; }

bool isLayoutView(const Graph& g, const Op& op) {
  if (op.kind != OpKind::Reshape && op.kind != OpKind::Slice) return false;
  if (g.value(op.inputs[0]).keepF32) return false;
  if (op.kind == OpKind::Reshape) return true;
  // A slice is read in place (a strided view) by kernels only: its operand
  // must be dense (not a slice itself), and no layout op or output copy may
  // read it.
  if (g.producer(op.inputs[0]).kind == OpKind::Slice) return false;
  ValueId r = op.results[0];
  for (ValueId o : g.outputs)
    if (o == r) return false;
  for (const Op& other : g.ops)
    if (isLayoutOp(other.kind))
      for (ValueId in : other.inputs)
        if (in == r) return false;
  return true;
}

int countKernels(const Graph& g) {
  int n = 0;
  for (const Op& op : g.ops)
    if (op.kind != OpKind::Input && op.kind != OpKind::Const && !isLayoutView(g, op)) ++n;
  return n;
}

}  // namespace mirage::ir
