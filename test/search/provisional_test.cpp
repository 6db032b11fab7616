// Provisional bounds (docs/search.md, "Provisional bounds"): a template
// bounds the search when it is found, before the verifier has checked it.
// A complete search returns what it returns with verified bounds only, and
// where the verifier rejects a candidate that had bounded the search, the
// search begins again with verified bounds only.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <iostream>

#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "model_options.h"
#include "same_front.h"

using namespace mirage;

TEST_CASE("provisional bounds leave a complete search's result unchanged", "[search][provisional]") {
  for (const char* text : test::kSmallSpacePrograms) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options with = test::smallSpaceOptions(), without = with;
    without.provisionalBounds = false;
    INFO(text);
    auto [a, b] = test::runBothComplete(*g, verifier, with, without);
    CHECK(a.stats.provisionalRestarts == 0);
    CHECK(b.stats.provisionalRestarts == 0);
    CHECK(a.stats.prunedByBound > 0);
    test::checkSameFront(a, b);
  }
}

TEST_CASE("the examples' fronts are the same with provisional bounds", "[search][provisional]") {
  // Default limits, the driver's model: bets, rungs and ties all at work.
  for (const char* name : {"gelu_mlp", "gqa"}) {
    std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/{}.mg", MIRAGE_EXAMPLES_DIR, name), std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options with = test::modelOptions(0, true), without = with;
    without.provisionalBounds = false;
    INFO(name);
    auto [a, b] = test::runBothComplete(*g, verifier, with, without);
    CHECK(a.stats.provisionalRestarts == 0);
    test::checkSameFront(a, b);
  }
}

TEST_CASE("a rejected provisional bound begins the search again", "[search][provisional]") {
  // The verifier's reference is not the program searched (as if the
  // enumerator had a bug): every candidate the search finds is rejected,
  // the first of them after its cost bounded the search. The search must
  // not keep what that bound pruned: it begins again with verified bounds
  // only, and returns what a search with verified bounds only returns.
  // RMSNorm+Linear (the first small space), verified against the same
  // product without the normalization.
  std::optional<ir::Graph> g = parse::parseString(test::kSmallSpacePrograms[0], "test.mg", std::cerr);
  std::optional<ir::Graph> other = parse::parseString(
      "graph r { X = input f16[4, 256]\n W = input f16[256, 64]\n Y = matmul(X, W)\n output Y }", "other.mg",
      std::cerr);
  REQUIRE(g);
  REQUIRE(other);
  verify::Verifier verifier(*other);
  search::Options with = test::smallSpaceOptions(), without = with;
  without.provisionalBounds = false;
  auto [a, b] = test::runBothComplete(*g, verifier, with, without);
  CHECK(a.stats.provisionalRestarts == 1);
  CHECK(b.stats.provisionalRestarts == 0);
  // Only the input survives, in both.
  CHECK(b.stats.precheckFailed + b.stats.checkFailed > 0);
  CHECK(a.stats.precheckFailed + a.stats.checkFailed == b.stats.precheckFailed + b.stats.checkFailed);
  test::checkSameFront(a, b);
  CHECK(a.candidates.size() == 1);
}
