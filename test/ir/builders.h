// Small helpers for building graphs in tests through the checked builders.
#pragma once

#include <catch2/catch.hpp>

#include "mirage/ir/check.h"

namespace mirage::ir::test {

inline ValueId input(Graph& g, const Shape& s, const std::string& name = "") {
  ValueId v = kNoValue;
  Error e = addInput(g, name.empty() ? "in" + std::to_string(g.inputs.size()) : name, s, &v);
  REQUIRE(e.empty());
  return v;
}

// Adds op and returns its error ("" when legal); *out gets the value.
inline Error tryOp(Graph& g, OpKind kind, std::vector<ValueId> ins, ValueId* out = nullptr,
                   const KernelConfig* k = nullptr, int dim = 0, int dim1 = 0, int64_t size = 1) {
  Op op;
  op.kind = kind;
  op.inputs = std::move(ins);
  op.dim = dim;
  op.dim1 = dim1;
  op.size = size;
  ValueId v = kNoValue;
  Error e = addOp(g, std::move(op), k, &v);
  if (out) *out = v;
  return e;
}

// Adds a legal op and returns the shape of its result.
inline Shape shapeOf(Graph& g, OpKind kind, std::vector<ValueId> ins, int dim = 0, int dim1 = 0,
                     int64_t size = 1) {
  ValueId v = kNoValue;
  Error e = tryOp(g, kind, std::move(ins), &v, nullptr, dim, dim1, size);
  INFO(e);
  REQUIRE(e.empty());
  return g.value(v).shape;
}

}  // namespace mirage::ir::test
