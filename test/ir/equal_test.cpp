// Structural equality of graphs (ir/equal.h).
#include <catch2/catch.hpp>

#include "builders.h"
#include "mirage/ir/equal.h"

using namespace mirage::ir;
using namespace mirage::ir::test;

namespace {

Graph small(const std::string& eps, int dim) {
  Graph g;
  g.name = "g";
  ValueId a = input(g, {4, 8}, "A");
  ValueId s = kNoValue;
  REQUIRE(tryOp(g, OpKind::ReduceSum, {a}, &s, nullptr, dim).empty());
  ValueId c = addConst(g, eps);
  ValueId r = kNoValue;
  REQUIRE(tryOp(g, OpKind::Add, {s, c}, &r).empty());
  g.values[static_cast<size_t>(r)].name = "R";
  g.outputs = {r};
  return g;
}

}  // namespace

TEST_CASE("sameGraph compares structure, attributes, constants and names", "[equal]") {
  std::string why;
  CHECK(sameGraph(small("1e-6", 1), small("1e-6", 1), &why));
  CHECK_FALSE(sameGraph(small("1e-6", 1), small("1e-5", 1), &why));
  CHECK(why == "operation 2 ('add'): operand 2 differs");
  CHECK_FALSE(sameGraph(small("1e-6", 1), small("1e-6", 0), &why));
  CHECK(why == "operation 1 ('reduce_sum'): attributes differ");
  // The second graph may name what the first leaves unnamed, not the reverse.
  Graph named = small("1", 1);
  named.values[1].name = "t0";
  CHECK(sameGraph(small("1", 1), named));
  CHECK_FALSE(sameGraph(named, small("1", 1), &why));
  CHECK(why == "operation 1 ('reduce_sum'): named 't0' and ''");
}
