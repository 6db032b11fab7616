// Small helpers that build programs through the checked IR builders, for the
// verifier's unit tests.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "mirage/ir/check.h"

namespace mirage::verify::test {

inline ir::ValueId input(ir::Graph& g, const std::string& name, ir::Shape shape) {
  ir::ValueId v;
  REQUIRE(ir::addInput(g, name, shape, &v).empty());
  return v;
}

// Adds op `k` on `ins`; `setup` may set attributes. `kernel` is the
// enclosing kernel's configuration for body ops.
template <class F = void (*)(ir::Op&)>
ir::ValueId op(ir::Graph& g, ir::OpKind k, std::vector<ir::ValueId> ins, F setup = [](ir::Op&) {},
               const ir::KernelConfig* kernel = nullptr) {
  ir::Op o;
  o.kind = k;
  o.inputs = std::move(ins);
  setup(o);
  ir::ValueId v;
  ir::Error e = ir::addOp(g, std::move(o), kernel, &v);
  INFO(e);
  REQUIRE(e.empty());
  return v;
}

// A kernel body whose inputs mirror `args` of g.
inline std::shared_ptr<ir::Graph> bodyFor(const ir::Graph& g, const std::vector<ir::ValueId>& args) {
  auto body = std::make_shared<ir::Graph>();
  for (ir::ValueId a : args) {
    ir::Op in;
    in.kind = ir::OpKind::Input;
    int index = body->appendOp(std::move(in), {g.value(a).shape}, {g.value(a).name});
    body->inputs.push_back(body->ops[static_cast<size_t>(index)].results[0]);
  }
  return body;
}

inline std::vector<ir::ValueId> kernel(ir::Graph& g, const std::vector<ir::ValueId>& args,
                                       const ir::KernelConfig& cfg, std::shared_ptr<ir::Graph> body,
                                       int results) {
  ir::Op k;
  k.kind = ir::OpKind::Kernel;
  k.inputs = args;
  k.config = cfg;
  k.body = std::move(body);
  std::vector<std::string> names;
  for (int i = 0; i < results; ++i) names.push_back("R" + std::to_string(g.values.size() + static_cast<size_t>(i)));
  std::vector<ir::ValueId> out;
  ir::Error e = ir::addKernel(g, std::move(k), results, names, &out);
  INFO(e);
  REQUIRE(e.empty());
  return out;
}

inline ir::KernelConfig config(int64_t gx, int64_t gy, int64_t gz, int64_t forloop) {
  ir::KernelConfig c;
  c.grid = {gx, gy, gz};
  c.gridRank = 3;
  c.forloop = forloop;
  return c;
}

}  // namespace mirage::verify::test
