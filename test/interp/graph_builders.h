// Small helpers that build ir::Graph programs through the checked builders of
// ir/check.h, for interpreter tests that need a graph without going through
// the parser. Every helper REQUIREs that the builder accepted the operation.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "mirage/ir/check.h"
#include "mirage/ir/graph.h"

namespace mirage::testing {

using ir::OpKind;
using ir::Shape;
using ir::ValueId;

inline ValueId input(ir::Graph& g, const std::string& name, const Shape& shape) {
  ValueId v;
  ir::Error e = ir::addInput(g, name, shape, &v);
  INFO(e);
  REQUIRE(e.empty());
  return v;
}

inline ValueId constant(ir::Graph& g, const std::string& text) { return ir::addConst(g, text); }

// Adds a pre-defined operator (or tile/accum/save when `kernel` is the
// enclosing kernel's configuration); `op` carries the attributes.
inline ValueId add(ir::Graph& g, ir::Op op, const ir::KernelConfig* kernel = nullptr) {
  ValueId v;
  ir::Error e = ir::addOp(g, std::move(op), kernel, &v);
  INFO(e);
  REQUIRE(e.empty());
  return v;
}

inline ir::Op op(OpKind kind, std::vector<ValueId> inputs) {
  ir::Op o;
  o.kind = kind;
  o.inputs = std::move(inputs);
  return o;
}

inline ValueId unary(ir::Graph& g, OpKind k, ValueId a) { return add(g, op(k, {a})); }
inline ValueId binary(ir::Graph& g, OpKind k, ValueId a, ValueId b) { return add(g, op(k, {a, b})); }

inline ValueId reduce(ir::Graph& g, OpKind k, ValueId a, int dim, int64_t size = 1) {
  ir::Op o = op(k, {a});
  o.dim = dim;
  o.size = size;
  return add(g, o);
}

inline ValueId transpose(ir::Graph& g, ValueId a, int d0, int d1) {
  ir::Op o = op(OpKind::Transpose, {a});
  o.dim = d0;
  o.dim1 = d1;
  return add(g, o);
}

// A kernel body under construction: `args` are its Input values standing for
// the kernel's arguments, in order.
struct Body {
  ir::KernelConfig config;
  std::shared_ptr<ir::Graph> graph = std::make_shared<ir::Graph>();
  std::vector<ValueId> args;

  Body(const ir::Graph& program, const std::vector<ValueId>& arguments, ir::KernelConfig c)
      : config(c) {
    graph->dtype = program.dtype;
    for (ValueId a : arguments) {
      ir::Op in;
      in.kind = OpKind::Input;
      int index = graph->appendOp(std::move(in), {program.value(a).shape}, {program.value(a).name});
      args.push_back(graph->ops[static_cast<size_t>(index)].results[0]);
      graph->inputs.push_back(args.back());
    }
  }

  ValueId tile(size_t arg, ir::DimMap imap, int fmap = -1) {
    ir::Op o = op(OpKind::Tile, {args.at(arg)});
    o.imap = imap;
    o.fmap = fmap;
    return add(*graph, o, &config);
  }
  ValueId accum(ValueId v, ir::AccumOp a = ir::AccumOp::Sum) {
    ir::Op o = op(OpKind::Accum, {v});
    o.accumOp = a;
    return add(*graph, o, &config);
  }
  ValueId apply(ir::Op o) { return add(*graph, std::move(o), &config); }
  void save(ValueId v, int result, ir::DimMap omap) {
    ir::Op o = op(OpKind::Save, {v});
    o.resultIndex = result;
    o.omap = omap;
    add(*graph, o, &config);
  }
};

inline std::vector<ValueId> kernel(ir::Graph& g, const std::vector<ValueId>& arguments, Body& body,
                                   const std::vector<std::string>& resultNames) {
  ir::Op k;
  k.kind = OpKind::Kernel;
  k.inputs = arguments;
  k.config = body.config;
  k.body = body.graph;
  std::vector<ValueId> results;
  ir::Error e = ir::addKernel(g, std::move(k), static_cast<int>(resultNames.size()), resultNames, &results);
  INFO(e);
  REQUIRE(e.empty());
  return results;
}

inline ir::KernelConfig config(std::array<int64_t, 3> grid, int64_t forloop) {
  ir::KernelConfig c;
  c.grid = grid;
  c.gridRank = 3;
  c.forloop = forloop;
  return c;
}

}  // namespace mirage::testing
