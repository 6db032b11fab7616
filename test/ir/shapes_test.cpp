// Shape rules of every pre-defined operator (../shared/spec/mg-language.md,
// "Operators"), with broadcasting and negative dims.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "builders.h"
#include "mirage/ir/printer.h"

using namespace mirage::ir;
using namespace mirage::ir::test;

TEST_CASE("element-wise unary operators keep the shape", "[shapes]") {
  for (OpKind k : {OpKind::Exp, OpKind::Square, OpKind::Sqrt, OpKind::Rsqrt, OpKind::Silu,
                   OpKind::Gelu, OpKind::Relu}) {
    Graph g;
    ValueId a = input(g, {2, 3, 5});
    CHECK(shapeOf(g, k, {a}) == Shape{2, 3, 5});
  }
}

TEST_CASE("element-wise binary operators broadcast like NumPy", "[shapes][broadcast]") {
  for (OpKind k : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div}) {
    Graph g;
    ValueId a = input(g, {4, 1, 6});
    ValueId b = input(g, {5, 1});
    ValueId c = input(g, {6});
    ValueId d = input(g, {4, 5, 6});
    CHECK(shapeOf(g, k, {a, b}) == Shape{4, 5, 6});  // size-1 dims stretch both ways
    CHECK(shapeOf(g, k, {c, a}) == Shape{4, 1, 6});  // missing leading dims are added
    CHECK(shapeOf(g, k, {d, d}) == Shape{4, 5, 6});
    ValueId one = addConst(g, "2");
    CHECK(shapeOf(g, k, {a, one}) == Shape{4, 1, 6});  // a number is a rank-0 operand
    CHECK(shapeOf(g, k, {one, a}) == Shape{4, 1, 6});
    ValueId e = input(g, {3, 6});
    CHECK(tryOp(g, k, {d, e}) == fmt::format("'{}' operands: shapes [4, 5, 6] and [3, 6] do not broadcast",
                                             opName(k)));
    CHECK(tryOp(g, k, {one, addConst(g, "1")}) ==
          fmt::format("'{}' needs at least one tensor operand", opName(k)));
  }
}

TEST_CASE("broadcastShapes on its own", "[shapes][broadcast]") {
  Shape out;
  CHECK(broadcastShapes({}, {3}, out).empty());
  CHECK(out == Shape{3});
  CHECK(broadcastShapes({1}, {7, 1, 3}, out).empty());
  CHECK(out == Shape{7, 1, 3});
  CHECK(broadcastShapes({2, 3}, {3, 2}, out) == "shapes [2, 3] and [3, 2] do not broadcast");
}

TEST_CASE("matmul contracts the last dim of A with the second-last of B", "[shapes][matmul]") {
  Graph g;
  ValueId a = input(g, {16, 64});
  ValueId b = input(g, {64, 32});
  CHECK(shapeOf(g, OpKind::Matmul, {a, b}) == Shape{16, 32});
  ValueId c = input(g, {32, 64});
  CHECK(tryOp(g, OpKind::Matmul, {a, c}) ==
        "matmul inner dims disagree: [16, 64] and [32, 64] (64 vs 32)");
  ValueId v = input(g, {64});
  CHECK(tryOp(g, OpKind::Matmul, {v, b}) ==
        "matmul needs operands of rank >= 2, got [64] and [64, 32]");
  CHECK(tryOp(g, OpKind::Matmul, {a, addConst(g, "2")}) ==
        "'matmul' takes a tensor, not a number, as operand 2");
}

TEST_CASE("matmul broadcasts its leading (batch) dims", "[shapes][matmul][broadcast]") {
  Graph g;
  ValueId a = input(g, {2, 1, 8, 4});
  ValueId b = input(g, {3, 4, 5});
  CHECK(shapeOf(g, OpKind::Matmul, {a, b}) == Shape{2, 3, 8, 5});
  ValueId c = input(g, {4, 5});
  CHECK(shapeOf(g, OpKind::Matmul, {a, c}) == Shape{2, 1, 8, 5});
  ValueId d = input(g, {7, 4, 5});
  ValueId e = input(g, {3, 8, 4});
  CHECK(tryOp(g, OpKind::Matmul, {e, d}) ==
        "matmul batch dims of [3, 8, 4] and [7, 4, 5] do not broadcast");
}

TEST_CASE("reductions keep the reduced dim with extent 1", "[shapes][reduce]") {
  for (OpKind k : {OpKind::ReduceSum, OpKind::ReduceMean, OpKind::ReduceMax}) {
    Graph g;
    ValueId a = input(g, {2, 6, 4});
    CHECK(shapeOf(g, k, {a}, 1) == Shape{2, 1, 4});
    CHECK(shapeOf(g, k, {a}, -1) == Shape{2, 6, 1});  // negative dims count from the end
    CHECK(shapeOf(g, k, {a}, -3) == Shape{1, 6, 4});
    CHECK(tryOp(g, k, {a}, nullptr, nullptr, 3) == "dim 3 is out of range for a tensor of rank 3");
    CHECK(tryOp(g, k, {a}, nullptr, nullptr, -4) == "dim -4 is out of range for a tensor of rank 3");
  }
}

TEST_CASE("negative dims are normalized in the stored op", "[shapes][negative]") {
  Graph g;
  ValueId a = input(g, {2, 6, 4});
  ValueId v = kNoValue;
  REQUIRE(tryOp(g, OpKind::ReduceMax, {a}, &v, nullptr, -2).empty());
  CHECK(g.producer(v).dim == 1);
  REQUIRE(tryOp(g, OpKind::Transpose, {a}, &v, nullptr, -1, -3).empty());
  CHECK(g.producer(v).dim == 2);
  CHECK(g.producer(v).dim1 == 0);
}

TEST_CASE("reduce_sum with size reduces a dim from n to s", "[shapes][reduce]") {
  Graph g;
  ValueId a = input(g, {2, 1024});
  CHECK(shapeOf(g, OpKind::ReduceSum, {a}, 1, 0, 64) == Shape{2, 64});
  CHECK(tryOp(g, OpKind::ReduceSum, {a}, nullptr, nullptr, 1, 0, 48) ==
        "size 48 does not divide extent 1024 of dim 1");
  CHECK(tryOp(g, OpKind::ReduceMean, {a}, nullptr, nullptr, 1, 0, 64) ==
        "'reduce_mean' takes no size argument");
}

TEST_CASE("transpose swaps two dims", "[shapes][transpose]") {
  Graph g;
  ValueId a = input(g, {2, 3, 5});
  CHECK(shapeOf(g, OpKind::Transpose, {a}, 0, 2) == Shape{5, 3, 2});
  CHECK(shapeOf(g, OpKind::Transpose, {a}, 1, 1) == Shape{2, 3, 5});
  CHECK(shapeOf(g, OpKind::Transpose, {a}, -1, -2) == Shape{2, 5, 3});
  CHECK(tryOp(g, OpKind::Transpose, {a}, nullptr, nullptr, 0, 3) ==
        "dim1 3 is out of range for a tensor of rank 3");
}

TEST_CASE("operand counts are checked", "[shapes][arity]") {
  Graph g;
  ValueId a = input(g, {2, 3});
  CHECK(tryOp(g, OpKind::Exp, {a, a}) == "'exp' takes 1 operand, got 2");
  CHECK(tryOp(g, OpKind::Add, {a}) == "'add' takes 2 operands, got 1");
}

TEST_CASE("inputs have rank 1 to 4 and extents in range", "[shapes][limits]") {
  Graph g;
  ValueId v;
  CHECK(addInput(g, "A", {}, &v) == "an input has rank 1 to 4, got rank 0");
  CHECK(addInput(g, "A", {1, 2, 3, 4, 5}, &v) == "an input has rank 1 to 4, got rank 5");
  CHECK(addInput(g, "A", {0}, &v) == "extent 0 is not a positive integer below 2^31");
  CHECK(addInput(g, "A", {int64_t{1} << 31}, &v) ==
        "extent 2147483648 is not a positive integer below 2^31");
  CHECK(addInput(g, "A", {1 << 20, 1 << 20, 2}, &v) ==
        "tensor [1048576, 1048576, 2] holds more than 2^40 elements");
  CHECK(addInput(g, "A", {1 << 20, 1 << 20}, &v).empty());
}

TEST_CASE("results obey the element limit", "[shapes][limits]") {
  Graph g;
  ValueId a = input(g, {1 << 20, 1});
  ValueId b = input(g, {1, 1 << 21});
  CHECK(tryOp(g, OpKind::Mul, {a, b}) == "tensor [1048576, 2097152] holds more than 2^40 elements");
}

TEST_CASE("block-level operators are rejected at program level", "[shapes]") {
  Graph g;
  ValueId a = input(g, {2, 3});
  CHECK(tryOp(g, OpKind::Tile, {a}) == "'tile' is only allowed inside a kernel body");
  CHECK(tryOp(g, OpKind::Accum, {a}) == "'accum' is only allowed inside a kernel body");
}

TEST_CASE("opKindFromName inverts opName for callable operators", "[names]") {
  for (OpKind kind : mirage::ir::allOpKinds()) {
    INFO(opName(kind));
    if (kind == OpKind::Kernel || kind == OpKind::Input || kind == OpKind::Const) {
      CHECK_FALSE(opKindFromName(opName(kind)));
      continue;
    }
    REQUIRE(opKindFromName(opName(kind)));
    CHECK(*opKindFromName(opName(kind)) == kind);
  }
  // Shorthands are kinds of their own until ir::expandShorthands runs.
  CHECK(opKindFromName("rms_norm") == OpKind::RmsNorm);
  CHECK_FALSE(opKindFromName("rms_normal"));
}

TEST_CASE("formatNumber gives the shortest text that reads back", "[printer]") {
  CHECK(formatNumber(0.125) == "0.125");
  CHECK(formatNumber(1e-6) == "1e-06");
  CHECK(formatNumber(4096) == "4096");
  CHECK(std::strtod(formatNumber(0.1).c_str(), nullptr) == 0.1);
}
