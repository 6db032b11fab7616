// The program generator of mirage-fuzz: the same seed gives the same
// program, every program is legal and reads back through the parser, shapes
// stay within the bounds that keep a case near a second, and over a few
// hundred seeds every operator, dtype and rank, partial reductions and
// broadcasting all occur. Also the float64 reference against the
// interpreter at f32 (they must agree to f32 rounding).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "mirage/fuzz/generate.h"
#include "mirage/interp/interpreter.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/interp/reference64.h"
#include "interp_agreement.h"

using namespace mirage;

TEST_CASE("the same seed gives the same program, other seeds other programs") {
  std::set<std::string> texts;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    std::string a = ir::printGraph(fuzz::generateProgram(seed));
    std::string b = ir::printGraph(fuzz::generateProgram(seed));
    REQUIRE(a == b);
    texts.insert(a);
  }
  CHECK(texts.size() >= 45);
  CHECK(fuzz::caseSeed(7, 0) == fuzz::caseSeed(7, 0));
  CHECK(fuzz::caseSeed(7, 0) != fuzz::caseSeed(7, 1));
  CHECK(fuzz::caseSeed(7, 0) != fuzz::caseSeed(8, 0));
}

TEST_CASE("generated programs are legal, read back, and stay within the size bounds") {
  fuzz::GenOptions opt;
  std::map<ir::OpKind, int> kinds;
  std::set<ir::DType> dtypes;
  std::set<size_t> ranks;
  int partial = 0, broadcasts = 0;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    ir::Graph g = fuzz::generateProgram(fuzz::caseSeed(1, seed), opt);
    INFO(ir::printGraph(g));
    REQUIRE(ir::checkProgram(g).empty());
    std::string why;
    REQUIRE(parse::roundTrips(g, &why));
    REQUIRE(!g.outputs.empty());
    REQUIRE(fuzz::countStatements(g) >= 1);
    dtypes.insert(g.dtype);
    for (ir::ValueId o : g.outputs) REQUIRE(g.producer(o).kind != ir::OpKind::Input);
    for (ir::ValueId in : g.inputs) {
      const ir::Shape& s = g.value(in).shape;
      REQUIRE(s.size() >= 1);
      REQUIRE(s.size() <= 4);
      REQUIRE(ir::numElements(s) <= opt.maxElements);
      ranks.insert(s.size());
    }
    for (const ir::Op& op : g.ops) {
      kinds[op.kind]++;
      if (op.kind == ir::OpKind::Matmul) REQUIRE(g.value(op.inputs[0]).shape.back() <= opt.maxInner);
      if (op.kind == ir::OpKind::ReduceSum && op.size > 1) ++partial;
      if (ir::isElementwiseBinary(op.kind) && g.value(op.inputs[0]).shape != g.value(op.inputs[1]).shape) ++broadcasts;
      for (ir::ValueId r : op.results) REQUIRE(ir::numElements(g.value(r).shape) <= 16 * opt.maxElements);
    }
  }
  for (ir::OpKind k : fuzz::programOperators()) {
    INFO(ir::opName(k));
    CHECK(kinds[k] > 0);
  }
  CHECK(dtypes.size() == 3);
  CHECK(ranks == std::set<size_t>{1, 2, 3, 4});
  CHECK(partial > 0);
  CHECK(broadcasts > 0);
}

TEST_CASE("the operators drawn are exactly the program-level ones of the OpKind range") {
  std::vector<ir::OpKind> ops = fuzz::programOperators();
  std::set<ir::OpKind> drawn(ops.begin(), ops.end());
  for (ir::OpKind kind : ir::allOpKinds()) {
    bool programLevel = ir::isElementwiseUnary(kind) || ir::isElementwiseBinary(kind) || ir::isReduction(kind) ||
                        kind == ir::OpKind::Matmul || kind == ir::OpKind::Transpose || ir::isLayoutOp(kind);
    INFO(ir::opName(kind));
    CHECK(drawn.count(kind) == (programLevel ? 1u : 0u));
  }
}

TEST_CASE("the float64 reference (interp::evaluate64) agrees with the interpreter at f32 on generated programs") {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    ir::Graph g = fuzz::generateProgram(fuzz::caseSeed(2, seed));
    INFO(ir::printGraph(g));
    fuzz_test::requireInterpreterAgreesWithFloat64(g, seed);
  }
}
