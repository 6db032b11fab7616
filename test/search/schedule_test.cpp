// The schedule of work items (docs/search.md, "Scheduling"): runs cut by
// their state budget and repeated with larger ones leave a complete
// search's result unchanged, and a program whose one-kernel space is large
// still gets its two-kernel candidates long before that space ends.
#include <catch2/catch.hpp>

#include <atomic>
#include <fmt/format.h>
#include <iostream>

#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "model_options.h"
#include "same_front.h"

using namespace mirage;

TEST_CASE("runs cut by tiny budgets give the same complete result", "[search][schedule]") {
  // Spaces small enough to explore whole (as in bound_test.cpp).
  for (const char* text : test::kSmallSpacePrograms) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options normal = test::smallSpaceOptions(), tiny = normal;
    // Every first run may visit one state, the next four, then 16, ...:
    // most items are cut several times before they end.
    tiny.itemBudgetStates = 1;
    INFO(text);
    auto [a, b] = test::runBothComplete(*g, verifier, normal, tiny);
    CHECK(a.stats.itemsCut == 0);
    CHECK(b.stats.itemsCut > 10);
    // Cut items run again. (Their states are not compared: what the bound
    // and the ties prune depends on when candidates are verified.)
    CHECK(b.stats.itemRuns > a.stats.itemRuns);
    // The same front, in the same order, and the same best.
    test::checkSameFront(a, b);
  }
}

TEST_CASE("two-kernel candidates come before the one-kernel space ends", "[search][schedule]") {
  // LayerNorm + Linear: its one-kernel passes grow severalfold each
  // (whole-row bodies of 13 to 17 operators; within five discrepancies the
  // one-kernel space is about 115,000 states, explored here to its end),
  // while two-kernel plans that
  // save each row's statistics come in the first two-kernel passes. At the
  // example's shapes (examples/layernorm_linear.mg) two kernels are faster
  // than one (a one-kernel form has a block per row or two, each streaming
  // all of W), so a two-kernel candidate is verified, not dominated, and
  // the bound does not close the one-kernel space. One thread, so that the
  // states are those of one schedule.
  std::optional<ir::Graph> g = parse::parseString(
      "graph ln { X = input f16[16, 4096]\n W = input f16[4096, 6144]\n"
      " Y = matmul(layer_norm(X, eps=1e-5), W)\n output Y }",
      "test.mg", std::cerr);
  REQUIRE(g);
  verify::Verifier verifier(*g);
  search::Options o = test::modelOptions(0, true);
  o.jobs = 1;
  o.limits.maxDiscrepancies = 5;
  o.limits.maxKernels = 1;
  search::Result one = search::runSearch(*g, verifier, o);
  CHECK(one.stats.complete);
  const int64_t oneKernelSpace = one.stats.states;

  std::atomic<bool> enough{false};
  o.cancel = &enough;
  o.limits.maxKernels = 2;
  o.onCandidate = [&](const search::Candidate& c) {
    if (c.kernels == 2) enough = true;
  };
  search::Result two = search::runSearch(*g, verifier, o);
  bool found = false;
  for (const search::Candidate& c : two.candidates) found = found || c.kernels == 2;
  CHECK(found);
  CHECK_FALSE(two.stats.complete);
  // With every one-kernel item before any two-kernel one (the schedule
  // before kernel counts had queues of their own) it would take more than
  // the one-kernel space's states.
  INFO("stopped at " << two.stats.states << " states, the one-kernel space has " << oneKernelSpace);
  CHECK(two.stats.states * 3 < oneKernelSpace);
}

TEST_CASE("the leader's bets leave a complete search's result unchanged", "[search][schedule]") {
  // The leader's next pass runs first with an aspiration below the best
  // (docs/search.md, "Scheduling", the leader's bet); where it prunes a
  // state for it, the whole pass runs later. A complete search returns the
  // same front, text and order included, with bets and without.
  // GELU-MLP and RMSNorm+Linear: their leaders' passes bet (item_bets 12
  // and 2 in default runs).
  // Their bets climb by rungs (docs/search.md, "The bet's rungs"), or,
  // without rungs, aspire halfway at once: the same front either way.
  int64_t bets = 0;
  for (const char* name : {"gelu_mlp", "rmsnorm_linear"})
    for (bool rungs : {true, false}) {
      std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/{}.mg", MIRAGE_EXAMPLES_DIR, name), std::cerr);
      REQUIRE(g);
      verify::Verifier verifier(*g);
      search::Options with = test::modelOptions(0, true), without = with;
      with.betRungs = rungs;
      without.leaderBets = false;
      INFO(name << (rungs ? ", rungs" : ", no rungs"));
      auto [a, b] = test::runBothComplete(*g, verifier, with, without);
      CHECK(b.stats.itemBets == 0);
      bets += a.stats.itemBets;
      test::checkSameFront(a, b);
    }
  CHECK(bets > 0);
}
