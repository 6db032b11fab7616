// The printer on graphs that did not come from the parser: names the
// language would reject are replaced by fresh ones, so the text reads back.
#include <catch2/catch.hpp>

#include "mirage/ir/check.h"
#include "mirage/ir/equal.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"

using namespace mirage;

namespace {

ir::ValueId op(ir::Graph& g, ir::OpKind kind, std::vector<ir::ValueId> ins, const std::string& name,
               const ir::KernelConfig* k = nullptr) {
  ir::Op o;
  o.kind = kind;
  o.inputs = std::move(ins);
  ir::ValueId v = ir::kNoValue;
  REQUIRE(ir::addOp(g, std::move(o), k, &v, name).empty());
  return v;
}

}  // namespace

TEST_CASE("names the language rejects are printed as fresh names", "[printer]") {
  ir::Graph g;
  g.name = "machine_made";
  ir::ValueId x = ir::kNoValue;
  REQUIRE(ir::addInput(g, "X", {4, 8}, &x).empty());
  ir::ValueId a = op(g, ir::OpKind::Exp, {x}, "exp");      // a reserved word
  ir::ValueId b = op(g, ir::OpKind::Relu, {a}, "dup");
  ir::ValueId c = op(g, ir::OpKind::Relu, {b}, "dup");     // bound twice
  ir::ValueId d = op(g, ir::OpKind::Relu, {c}, "not a name");

  // A kernel whose body reuses the graph name "dup".
  auto body = std::make_shared<ir::Graph>();
  ir::KernelConfig k;
  ir::Op in;
  in.kind = ir::OpKind::Input;
  body->inputs.push_back(body->values.size());
  body->appendOp(in, {{4, 8}}, {"whatever"});
  ir::ValueId t = op(*body, ir::OpKind::Tile, {body->inputs[0]}, "dup", &k);
  ir::ValueId s = op(*body, ir::OpKind::Accum, {t}, "X", &k);
  ir::Op save;
  save.kind = ir::OpKind::Save;
  save.inputs = {s};
  ir::ValueId none;
  REQUIRE(ir::addOp(*body, save, &k, &none).empty());
  ir::Op kern;
  kern.kind = ir::OpKind::Kernel;
  kern.inputs = {d};
  kern.body = body;
  std::vector<ir::ValueId> res;
  REQUIRE(ir::addKernel(g, kern, 1, {"R"}, &res).empty());
  g.outputs = {res[0]};

  std::string text = ir::printGraph(g);
  INFO(text);
  std::ostringstream err;
  std::optional<ir::Graph> back = parse::parseString(text, "printed.mg", err);
  INFO(err.str());
  REQUIRE(back);
  CHECK(ir::printGraph(*back) == text);
  std::string why;
  CHECK(parse::roundTrips(*back, &why));
  CHECK(text.find("exp = ") == std::string::npos);
  CHECK(text.find("  dup = relu(t") != std::string::npos);   // the first "dup" keeps its name
  CHECK(text.find("    dup = tile") == std::string::npos);   // the body's does not
}
