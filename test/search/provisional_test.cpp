// Provisional bounds (docs/search.md, "Provisional bounds"): a template
// bounds the search when it is found, before the verifier has checked it.
// A complete search returns what it returns with verified bounds only, and
// where the verifier rejects a candidate that had bounded the search, the
// search begins again with verified bounds only.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <iostream>
#include <limits>
#include <mutex>
#include <vector>

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

TEST_CASE("a run stopped by its limit keeps the front of what it verified", "[search][provisional]") {
  // A template bounds the search before its check; where the limit stops
  // the run before that check, the front the run returns is still the one
  // of the candidates it verified: none of them is dropped for lying
  // beyond the reach (frontSlack times the best) of a template that never
  // was verified. QKNorm+GQA verifies its 31.18 us one-kernel candidate
  // early and finds its 11.99 us plan (reach 24 us) a few seconds later,
  // about half a second before that plan's check ends; the limits below
  // stop runs around then.
  std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/qknorm_gqa.mg", MIRAGE_EXAMPLES_DIR), std::cerr);
  REQUIRE(g);
  verify::Verifier verifier(*g);
  for (double seconds : {3.0, 4.0, 4.5, 5.0}) {
    search::Options o = test::modelOptions(seconds, true);
    std::vector<search::Candidate> verified;
    std::mutex mu;
    o.onCandidate = [&](const search::Candidate& c) {
      std::lock_guard lock(mu);
      verified.push_back(c);
    };
    search::Result r = search::runSearch(*g, verifier, o);
    double best = std::numeric_limits<double>::infinity();
    for (const search::Candidate& c : verified) best = std::min(best, c.cost);
    INFO("limit " << seconds << " s, best verified " << best << " us, " << verified.size() << " verified");
    // Every verified candidate within the verified best's reach that no
    // other verified one beats in both time and launches is returned.
    for (const search::Candidate& c : verified) {
      if (c.cost > o.frontSlack * best) continue;
      bool dominated = false;
      for (const search::Candidate& d : verified)
        dominated = dominated || (d.cost <= c.cost && d.kernels <= c.kernels && (d.cost < c.cost || d.kernels < c.kernels));
      if (dominated) continue;
      bool kept = false;
      for (const search::Candidate& k : r.candidates) kept = kept || (k.cost == c.cost && k.kernels == c.kernels);
      INFO("verified " << c.cost << " us in " << c.kernels << " launch(es)");
      CHECK(kept);
    }
  }
}
