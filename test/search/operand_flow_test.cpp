// Where a contraction's operand must flow (operand_flow.h): the programs
// whose output A · B makes the kernels that read B read A's degrees of
// freedom, and the ones the analysis must leave alone.
#include <catch2/catch.hpp>

#include <iostream>
#include <string>

#include "mirage/parse/parser.h"
#include "mirage/search/search.h"
#include "operand_flow.h"

using namespace mirage;

namespace {

std::vector<search::OperandFlow> flowsOf(const std::string& text) {
  std::optional<ir::Graph> g = parse::parseString(text, "flow.mg", std::cerr);
  REQUIRE(g);
  return search::findOperandFlows(*g);
}

std::string linear(const std::string& a, const std::string& output = "Y") {
  return "graph g {\n  X = input f16[16, 256]\n  W = input f16[256, 64]\n  G = input f16[256]\n  Y = matmul(" + a +
         ", W)\n  Z = add(Y, 1)\n  output " + output + "\n}\n";
}

}  // namespace

TEST_CASE("operand flow: norms and plain operands of an output's contraction", "[search][flow]") {
  // X is 16 x 256: a statistic per row is 16 of its 4096 values.
  SECTION("layer_norm: two statistics per row") {
    auto flows = flowsOf(linear("layer_norm(X)"));
    REQUIRE(flows.size() == 1);
    CHECK(flows[0].partner == 1);
    CHECK(flows[0].source == 0);
    CHECK(flows[0].share == Approx(1 - 2.0 / 256));
  }
  SECTION("rms_norm with a weight: one statistic; the weight is not a source") {
    auto flows = flowsOf(linear("mul(rms_norm(X), G)"));
    REQUIRE(flows.size() == 1);
    CHECK(flows[0].source == 0);
    CHECK(flows[0].share == Approx(1 - 1.0 / 256));
  }
  SECTION("statistics over both labels: a value per row and one per column") {
    auto flows = flowsOf(linear("sub(sub(X, reduce_mean(X, dim=0)), reduce_mean(X, dim=1))"));
    REQUIRE(flows.size() == 1);
    CHECK(flows[0].share == Approx(1 - (256.0 + 16.0) / 4096));
  }
  SECTION("the plain input, and functions of it that vary with each element") {
    for (const char* a : {"exp(X)", "tanh(mul(X, 0.5))", "div(1, X)", "sub(0.5, square(X))"}) {
      INFO(a);
      auto flows = flowsOf(linear(a));
      REQUIRE(flows.size() == 1);
      CHECK(flows[0].share == 1);
    }
    // X · W: each input is the other's partner.
    auto flows = flowsOf(linear("X"));
    REQUIRE(flows.size() == 2);
    CHECK(flows[0].partner == 1);
    CHECK(flows[0].source == 0);
    CHECK(flows[1].partner == 0);
    CHECK(flows[1].source == 1);
  }
  SECTION("the partner on the left") {
    auto flows = flowsOf(
        "graph g {\n  X = input f16[256, 16]\n  W = input f16[64, 256]\n  Y = matmul(W, rms_norm(X, dim=0))\n"
        "  output Y\n}\n");
    REQUIRE(flows.size() == 1);
    CHECK(flows[0].partner == 1);
    CHECK(flows[0].share == Approx(1 - 1.0 / 256));
  }
}

TEST_CASE("operand flow: what the analysis leaves alone", "[search][flow]") {
  // Each of these either may lose X's elements (a maximum, a product or a
  // difference of two functions of X, a factor that may vanish), or is not
  // an output's contraction with an input.
  const char* refused[] = {
      "relu(X)",                    // constant where X < 0
      "abs(X)",                     // not followed
      "maximum(X, 0.5)",            // constant where X < 0.5
      "sub(X, X)",                  // two functions of X: they cancel here
      "mul(X, exp(X))",             // two functions of X
      "mul(X, 0)",                  // a factor that vanishes
      "mul(X, sub(G, G))",          // a factor that may vanish
      "sub(X, reduce_max(X, dim=1))",  // a maximum
  };
  for (const char* a : refused) {
    INFO(a);
    CHECK(flowsOf(linear(a)).empty());
  }
  SECTION("a contraction that is not an output") { CHECK(flowsOf(linear("layer_norm(X)", "Z")).empty()); }
  SECTION("an operand that reads the partner") {
    CHECK(flowsOf("graph g {\n  X = input f16[16, 16]\n  Y = matmul(exp(X), X)\n  output Y\n}\n").empty());
  }
  SECTION("a partner that is not an input: the first layer of an MLP") {
    auto flows = flowsOf(
        "graph g {\n  X = input f16[16, 256]\n  W1 = input f16[256, 64]\n  W2 = input f16[64, 32]\n"
        "  O = matmul(gelu(matmul(X, W1)), W2)\n  output O\n}\n");
    CHECK(flows.empty());
  }
}

TEST_CASE("costs rank at the model's resolution: rounding down is monotone and keeps rounded times",
          "[search][flow]") {
  for (double t : {0.0, 3.2, 17.122187462686568, 20.322187462686568, 20.3221, 1234.56789}) {
    INFO(t);
    const double q = search::quantizeUs(t);
    CHECK(q <= t + 1e-9);
    CHECK(t - q < search::kCostResolutionUs);
    CHECK(search::quantizeUs(q) == q);
    CHECK(search::quantizeUs(t + search::kCostResolutionUs) >= q);
  }
  CHECK(search::quantizeUs(20.322168) == search::quantizeUs(20.322187));
}
