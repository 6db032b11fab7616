// Branch and bound (docs/search.md, "Bounds"): the lower bounds never exceed
// the cost model that ranks, on every template the search builds for the
// examples, and pruning by them returns the same best as a search without
// them on a space small enough to exhaust.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <iostream>
#include <limits>

#include "mirage/backend/arch.h"
#include "mirage/backend/cost_model.h"
#include "mirage/driver/driver.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "model_options.h"
#include "same_front.h"

using namespace mirage;
using mirage::test::h100;
using mirage::test::modelOptions;

namespace {

// A search of `seconds` with the model's bounds, each template's bound
// being the largest of its last kernel's states on the way to it: the
// terms of partial bodies (unread tiles, outputs still to make) are
// checked too. It emitted templates, none of them under its bound.
search::Result searchCheckingBounds(const ir::Graph& g, double seconds, const std::string& what) {
  verify::Verifier verifier(g);
  search::Options o = modelOptions(seconds, true);
  o.checkAncestorBounds = true;
  search::Result r = search::runSearch(g, verifier, o);
  INFO(what << "\n" << r.stats.firstBoundViolation);
  CHECK(r.stats.templates > 0);
  CHECK(r.stats.boundViolations == 0);
  return r;
}

// The same check with pruning by none of the bounds, over the whole space
// of `o`: the bound of every state on the way to every template is
// checked against its cost, and the space is searched to its end.
void checkBoundsUnderCosts(const ir::Graph& g, const verify::Verifier& verifier, search::Options o) {
  o.checkAncestorBounds = true;
  o.pruneByBound = false;
  search::Result r = search::runSearch(g, verifier, o);
  INFO(r.stats.firstBoundViolation << "\n" << r.stats.states << " states, " << r.stats.templates << " templates");
  CHECK(r.stats.complete);
  CHECK(r.stats.templates > 0);
  CHECK(r.stats.boundViolations == 0);
}

}  // namespace

TEST_CASE("the lower bound is at most the cost model on every template of the examples", "[search][bound]") {
  // 2.5 s each: hundreds to thousands of templates, one- and two-kernel ones.
  for (const char* name : {"lora", "gated_mlp", "rmsnorm_linear", "ntrans", "gqa", "softcap_attention", "qknorm_gqa",
                           "layernorm_linear", "gelu_mlp"}) {
    std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/{}.mg", MIRAGE_EXAMPLES_DIR, name), std::cerr);
    REQUIRE(g);
    search::Result r = searchCheckingBounds(*g, 2.5, name);
    // Every verified candidate costs no less than the bound of k launches
    // moving the program's inputs and outputs, both rounded down to the
    // ranking's resolution (search::quantizeUs) as the search compares them.
    double io = 0;
    for (ir::ValueId v : g->inputs) io += static_cast<double>(ir::numElements(g->value(v).shape)) * 2;
    for (ir::ValueId v : g->outputs) io += static_cast<double>(ir::numElements(g->value(v).shape)) * 2;
    for (const search::Candidate& c : r.candidates)
      CHECK(search::quantizeUs(backend::launchesFloorUs(c.kernels, io, h100())) <= c.cost * (1 + 1e-12));
  }
}

TEST_CASE("the bound of loop kernels whose accumulators make the outputs is at most the model", "[search][bound]") {
  // Few blocks and long loops, so that shared-memory traffic is what the
  // model charges: an output an accumulator makes from a tile or from a
  // value the body has costs no traffic of its own, and the bound of the
  // states before it (outputs still to make) must not charge any.
  for (const char* text : {
           "graph a { X = input f16[16384, 16]\n Y = reduce_sum(mul(X, X), dim=0)\n output Y }",
           "graph b { X = input f16[16384, 16]\n Y = reduce_sum(X, dim=0)\n Z = reduce_sum(mul(X, X), dim=0)\n"
           " output Y\n output Z }",
           "graph c { X = input f16[8, 4096]\n W = input f16[4096, 16]\n Y = matmul(X, W)\n"
           " Z = reduce_sum(X, dim=1)\n output Y\n output Z }",
       }) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    CHECK(searchCheckingBounds(*g, 5, text).stats.complete);
  }
}

TEST_CASE("a kernel's floor at its own work is its cost", "[search][bound]") {
  // One kernel, no operators but the tiles' loads and the save: the floor
  // given exactly that work is the model's time for it.
  std::optional<ir::Graph> g = parse::parseString(
      "graph c { X = input f16[1024, 1024]\n Y = kernel(X) grid=[128] forloop=1 {\n"
      "  t = tile(X, imap={x:0})\n a = accum(t)\n save(a, Y, omap={x:0}) }\n output Y }",
      "test.mg", std::cerr);
  REQUIRE(g);
  backend::CostEstimate e = backend::estimateCost(*g, h100());
  REQUIRE(e.kernels.size() == 1);
  backend::KernelFloor f;
  f.blocks = 128;
  f.dramBytes = 2.0 * 1024 * 1024 * 2;
  f.blockLoadBytes = 2 * 8.0 * 1024 * 2;  // the tile and the save
  f.blockSmemBytes = 8.0 * 1024 * 2;      // the tile written once
  f.smemPerBlock = 8 * 1024 * 2;
  f.blockElements = {{ir::OpKind::Accum, 8.0 * 1024}};
  CHECK(backend::kernelFloorUs(f, h100()) <= e.totalUs);
  CHECK(backend::kernelFloorUs(f, h100()) == Approx(e.totalUs).epsilon(0.05));
  // k launches cost at least k launch overheads and two round trips each.
  CHECK(backend::launchesFloorUs(3, 0, h100()) == Approx(3 * (2.0 + 1.2)));
  // A launch that walks 8 partials pays 9 round trips, not 2.
  CHECK(backend::launchesFloorUs(2, 0, h100(), 8) == Approx(2 * 2.0 + (2 * 2 + 7) * 0.6));
  CHECK(search::estimateLaunchesFloorUs(2, 0, 8) - search::estimateLaunchesFloorUs(2, 0) == Approx(7 * 0.05));
}

// Spaces small enough to explore whole without the bound.
const char* const kSmallSpaces[] = {
    "graph r { X = input f16[4, 256]\n W = input f16[256, 64]\n Y = matmul(rms_norm(X), W)\n output Y }",
    "graph m { X = input f16[8, 64]\n W1 = input f16[64, 128]\n W2 = input f16[64, 128]\n"
    " O = mul(silu(matmul(X, W1)), matmul(X, W2))\n output O }",
    // Element-wise work on few blocks, as NTrans: the bound of a state
    // counts the tiles no operator reads yet (their readers' shared
    // traffic), so pruning may come before the body has its operators.
    "graph n { H = input f16[2, 64]\n X = input f16[2, 64]\n a = input f16[2, 64]\n"
    " O = add(X, mul(a, H))\n output O }",
    // Two outputs, a function: the needed-operators prune drops states
    // of the last kernel, and searches after a closed kernel repeat.
    "graph s { X = input f16[8, 64]\n W = input f16[64, 32]\n H = matmul(X, W)\n"
    " O = sqrt(H)\n P = mul(H, H)\n output O, P }",
    // Two matmuls with large weights: a first kernel that has not tiled
    // W2 leaves its 4 MiB to the kernels after it (futureFor).
    "graph w { X = input f16[16, 1024]\n W1 = input f16[1024, 2048]\n W2 = input f16[2048, 1024]\n"
    " H = matmul(X, W1)\n O = matmul(mul(silu(H), H), W2)\n output O }",
    // Small element-wise work: every one-kernel body costs the latency
    // floor, so ties decide, and plans whose tie key loses are pruned
    // (docs/search.md, "Ties"); the best is the one found without it.
    "graph t { X = input f16[8, 64]\n C = input f16[64]\n Z = relu(sub(0.25, add(X, C)))\n"
    " Y = mul(X, C)\n output Z, Y }",
};

// The limits that keep kSmallSpaces small enough to exhaust; `bounded`:
// with the model's lower bounds.
static search::Options smallSpaceOptions(bool bounded) {
  search::Options o = modelOptions(0, bounded);
  o.limits.maxKernels = 2;
  o.limits.maxBlockOps = 6;
  o.limits.maxDiscrepancies = 2;
  return o;
}

TEST_CASE("branch and bound returns the same best as the exhaustive search", "[search][bound]") {
  int prunedPrograms = 0;
  for (const char* text : kSmallSpaces) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options with = smallSpaceOptions(true), without = smallSpaceOptions(false);
    search::Result a = search::runSearch(*g, verifier, with);
    search::Result b = search::runSearch(*g, verifier, without);
    INFO(text);
    REQUIRE(a.stats.complete);
    REQUIRE(b.stats.complete);
    CHECK(b.stats.endedBy == "exhausted");
    // What the bound prunes depends on when the verifier, which runs beside
    // the search, accepts the first candidate: on a loaded machine a search
    // may end before that ("w" ended exhausted once in a CI run). So the
    // report must say what happened, and the bound must have pruned in most
    // of the programs, not in each.
    const bool pruned = a.stats.prunedByBound + a.stats.itemsPrunedByBound > 0;
    CHECK(a.stats.endedBy == (pruned ? "bound" : "exhausted"));
    if (pruned) {
      ++prunedPrograms;
      CHECK(a.stats.states < b.stats.states);
    }
    const search::Candidate& ba = a.candidates[static_cast<size_t>(a.best)];
    const search::Candidate& bb = b.candidates[static_cast<size_t>(b.best)];
    // The same best, text included: a plan is pruned only when every
    // completion is strictly dominated, so ties are decided as without it.
    CHECK(ba.cost == bb.cost);
    CHECK(ba.kernels == bb.kernels);
    CHECK(ir::printGraph(ba.graph) == ir::printGraph(bb.graph));
    // So is the whole front of (predicted time, launches).
    REQUIRE(a.candidates.size() == b.candidates.size());
    for (size_t i = 0; i < a.candidates.size(); ++i)
      CHECK(ir::printGraph(a.candidates[i].graph) == ir::printGraph(b.candidates[i].graph));
    // Without the barren-search skip, the saturated-state skip and the
    // needed-operators prune: the same front (the states each visits
    // depend on when the threads' candidates were verified, so they are
    // not compared).
    search::Options plain = with;
    plain.skipBarren = false;
    plain.skipSaturatedStates = false;
    plain.pruneUnreachable = false;
    plain.deferTies = false;
    search::Result c = search::runSearch(*g, verifier, plain);
    REQUIRE(c.stats.complete);
    REQUIRE(a.candidates.size() == c.candidates.size());
    for (size_t i = 0; i < a.candidates.size(); ++i)
      CHECK(ir::printGraph(a.candidates[i].graph) == ir::printGraph(c.candidates[i].graph));
  }
  CHECK(prunedPrograms >= 4);
}

TEST_CASE("a state whose subtree a pass explored whole is not walked again: the same front, fewer states",
          "[search][bound]") {
  // A later pass reaches the same states with one discrepancy more; where
  // an earlier pass deferred nothing below a state, the later one would
  // visit the same subtree (docs/search.md, "Saturated states"). With and
  // without the skip, bounded and not; one thread, so that both runs see
  // one schedule.
  int64_t statesWith = 0, statesWithout = 0;
  for (const char* text : kSmallSpaces)
    for (bool bounded : {true, false}) {
      std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
      REQUIRE(g);
      verify::Verifier verifier(*g);
      search::Options skip = smallSpaceOptions(bounded);
      skip.limits.maxDiscrepancies = 3;
      skip.jobs = 1;
      search::Options walk = skip;
      walk.skipSaturatedStates = false;
      INFO(text << (bounded ? " bounded" : ""));
      auto [a, b] = test::runBothComplete(*g, verifier, skip, walk);
      test::checkSameFront(a, b);
      CHECK(a.stats.states <= b.stats.states);
      statesWith += a.stats.states;
      statesWithout += b.stats.states;
    }
  CHECK(statesWith < statesWithout);
}

TEST_CASE("ties wait for the work items: the same front, with no more checks", "[search][bound]") {
  // A candidate that a verified one ties in time and launches only decides
  // which of the two is returned; checked once the items are done, best rank
  // first, it gives the same front as when checked at once, and a strictly
  // better candidate found meanwhile spares its check (docs/search.md,
  // "Ties wait"). One thread, so that both runs see one schedule.
  int64_t checksDeferred = 0, checksAtOnce = 0;
  for (const char* text : kSmallSpaces) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options deferred = smallSpaceOptions(true);
    deferred.jobs = 1;
    search::Options atOnce = deferred;
    atOnce.deferTies = false;
    INFO(text);
    auto [a, b] = test::runBothComplete(*g, verifier, deferred, atOnce);
    test::checkSameFront(a, b);
    checksDeferred += a.stats.prechecked;
    checksAtOnce += b.stats.prechecked;
  }
  CHECK(checksDeferred <= checksAtOnce);
}

TEST_CASE("the front reaches kFrontSlack times the best, and within that it is the whole Pareto front",
          "[search][bound]") {
  // Without the reach (frontSlack infinite, no bound) the front holds every
  // launch count's best, however slow: "w"'s one-kernel bodies recompute
  // H in every block. With it, no candidate but the input is slower than
  // kFrontSlack times the best, and the candidates within that are the
  // same.
  int beyondReach = 0;
  for (const char* text : kSmallSpaces) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options reach = smallSpaceOptions(true), whole = smallSpaceOptions(false);
    whole.frontSlack = std::numeric_limits<double>::infinity();
    search::Result a = search::runSearch(*g, verifier, reach);
    search::Result b = search::runSearch(*g, verifier, whole);
    INFO(text);
    REQUIRE(a.stats.complete);
    REQUIRE(b.stats.complete);
    const double best = a.candidates[static_cast<size_t>(a.best)].cost;
    CHECK(best == b.candidates[static_cast<size_t>(b.best)].cost);
    // Candidate 0 is the input, kept whatever it costs (the fallback).
    std::vector<std::string> within;
    for (size_t i = 1; i < b.candidates.size(); ++i) {
      if (b.candidates[i].cost <= search::kFrontSlack * best)
        within.push_back(ir::printGraph(b.candidates[i].graph));
      else
        ++beyondReach;
    }
    std::vector<std::string> kept;
    for (size_t i = 1; i < a.candidates.size(); ++i) {
      CHECK(a.candidates[i].cost <= search::kFrontSlack * best);
      kept.push_back(ir::printGraph(a.candidates[i].graph));
    }
    CHECK(kept == within);
  }
  // Some front had a candidate beyond the reach, so the reach was tested.
  CHECK(beyondReach > 0);
}

TEST_CASE("a program whose candidates all cost the floor ends by bound at the default limits", "[search][bound]") {
  // LayerNorm and an element-wise chain on small tiles: every one-kernel
  // body costs the launch and the latency floor, so ties decide. The
  // direct fusion has no value off the program's own terms, and every
  // state with one loses its ties to it (tie_key.h); before that rule
  // these spaces (20 operators, 8 discrepancies) did not end in a minute.
  const char* programs[] = {
      "graph ln { X = input f16[16, 1024]\n D = sub(X, reduce_mean(X, dim=1))\n"
      " Y = div(D, sqrt(add(reduce_mean(square(D), dim=1), 0.00001)))\n output Y }",
      "graph chain { A = input f16[4, 24, 40]\n B = input f16[24, 1]\n"
      " Y = silu(rsqrt(sqrt(add(exp(mul(sub(A, B), 0.5)), 2))))\n output Y }",
  };
  for (const char* text : programs) {
    std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options o = modelOptions(60, true);
    search::Result r = search::runSearch(*g, verifier, o);
    INFO(text);
    REQUIRE(r.best >= 0);
    CHECK(r.stats.complete);
    CHECK(r.stats.endedBy == "bound");
    CHECK(r.candidates[static_cast<size_t>(r.best)].kernels == 1);
  }
}

TEST_CASE("sums still to make: the same front with fewer states, under the model on every state", "[search][bound]") {
  // Normalizations on few wide rows, so that shared-memory traffic is what
  // the model charges (docs/search.md, "Sums still to make"): a state
  // whose needed argument still lacks the sum of squares must still sum
  // and write the summands (one value, or two where no one operator of
  // the values present makes them, or as many as counting the summands
  // says). Two outputs, one without the atom (its operator may come
  // first), a row input that has no label of the sum, and NTrans.
  struct Case {
    const char* text;
    int discrepancies;  // of the runs compared
    int exhaustive;     // of the run that prunes nothing and checks every state's bound
  };
  const Case cases[] = {
      {"graph n2 { H = input f16[2, 8192]\n X = input f16[2, 8192]\n O = rms_norm(add(X, rms_norm(H)))\n output O }", 3,
       4},
      {"graph n3 { X = input f16[2, 8192]\n Y = input f16[2, 8192]\n G = input f16[2, 1]\n P = mul(X, Y)\n"
       " O = div(X, sqrt(add(reduce_mean(mul(P, Y), dim=1), G)))\n output P, O }",
       3, 4},
      {"graph n4 { X = input f16[2, 8192]\n Y = input f16[2, 8192]\n"
       " O = mul(Y, rsqrt(reduce_sum(mul(sub(X, Y), Y), dim=1)))\n output O }",
       3, 4},
      {"graph nt { H = input f16[8, 4096]\n X = input f16[8, 4096]\n a = input f16[8, 4096]\n"
       " O = rms_norm(add(X, mul(a, sub(rms_norm(H), X))))\n output O }",
       3, 2},
  };
  int fewer = 0;
  for (const Case& k : cases) {
    std::optional<ir::Graph> g = parse::parseString(k.text, "test.mg", std::cerr);
    REQUIRE(g);
    verify::Verifier verifier(*g);
    search::Options o = modelOptions(0, true);
    o.limits.maxDiscrepancies = k.discrepancies;
    search::Result first = search::runSearch(*g, verifier, o);
    REQUIRE(first.stats.complete);
    REQUIRE(first.best >= 0);
    // With the best known from the start and one thread, what the bound
    // prunes does not depend on when the verifier accepts a candidate.
    o.jobs = 1;
    o.seeds = {first.candidates[static_cast<size_t>(first.best)].graph};
    search::Options without = o;
    without.chargeSumsStillToMake = false;
    INFO(k.text);
    auto [a, b] = test::runBothComplete(*g, verifier, o, without);
    INFO(a.stats.states << " states with the charge, " << b.stats.states << " without");
    test::checkSameFront(a, b);
    CHECK(a.stats.states <= b.stats.states);
    if (a.stats.states < b.stats.states) ++fewer;
    // Pruning by none of the bounds: the bound of every state on the way
    // to every template of the space is checked against its cost.
    search::Options all = modelOptions(60, true);
    all.limits.maxDiscrepancies = k.exhaustive;
    checkBoundsUnderCosts(*g, verifier, all);
  }
  CHECK(fewer >= 3);
}

// GQA's space with two kernels at most and five discrepancies, complete
// in a few seconds with one thread: the spaces the guard's rules and
// charges are compared on.
static search::Options gqaTwoKernels() {
  search::Options o = modelOptions(0, true);
  o.limits.maxKernels = 2;
  o.limits.maxDiscrepancies = 5;
  o.jobs = 1;
  return o;
}

TEST_CASE("guarded partials: the same front with and without their rules and their loop's charge",
          "[search][bound]") {
  // GQA (the example, at the paper's shapes), two kernels: a first kernel that splits the
  // keys saves scan-rescaled sums beside its block maxima, and the second
  // walks them with a for-loop of that kernel's blocks along the keys
  // (flash decoding; docs/search.md, "Guarded partials"). The rules
  // (accumulate the keys only with their running maximum; save only
  // rescaled sums from such a kernel) leave the front as it was, and the
  // bound's charge for that loop keeps it too, with fewer states.
  std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/gqa.mg", MIRAGE_EXAMPLES_DIR), std::cerr);
  REQUIRE(g);
  verify::Verifier verifier(*g);
  const search::Options o = gqaTwoKernels();
  search::Options rules = o;
  rules.chargePartialLoops = false;
  search::Options none = rules;
  none.guardedSplitRules = false;
  search::Result a = search::runSearch(*g, verifier, o);
  search::Result b = search::runSearch(*g, verifier, rules);
  search::Result c = search::runSearch(*g, verifier, none);
  INFO(a.stats.states << " states, " << b.stats.states << " without the charge, " << c.stats.states
                      << " without the rules either");
  REQUIRE(a.stats.complete);
  REQUIRE(b.stats.complete);
  REQUIRE(c.stats.complete);
  REQUIRE(a.best >= 0);
  CHECK(a.candidates[static_cast<size_t>(a.best)].kernels == 2);  // flash decoding
  test::checkSameFront(a, b);
  test::checkSameFront(a, c);
  CHECK(a.stats.states < b.stats.states);
  CHECK(b.stats.states <= c.stats.states);
  // A state's walk over the extent choices starts where its nearest
  // checked ancestor's stopped: the same decisions, state for state (with
  // the best known from the start, so that what is pruned does not depend
  // on when the verifier accepts a candidate).
  search::Options seeded = o;
  seeded.seeds = {a.candidates[static_cast<size_t>(a.best)].graph};
  search::Options fresh = seeded;
  fresh.resumeAncestorWalks = false;
  search::Result e = search::runSearch(*g, verifier, seeded);
  search::Result f = search::runSearch(*g, verifier, fresh);
  INFO(e.stats.states << " states resuming, " << f.stats.states << " not");
  CHECK(e.stats.states == f.stats.states);
  CHECK(e.stats.prunedByBound == f.stats.prunedByBound);
  CHECK(e.stats.templates == f.stats.templates);
  // Pruning by none of the bounds: the bound of every state on the way to
  // every template of the space, the loop's charge included, is checked
  // against its cost.
  search::Options all = modelOptions(120, true);
  all.limits.maxKernels = 2;
  all.limits.maxDiscrepancies = 5;
  checkBoundsUnderCosts(*g, verifier, all);
}

// A bound's term only prunes: `on` and `off` (which differ by that term)
// give the same candidates, text and order, `on` in fewer states.
static void checkOnlyPrunes(const ir::Graph& g, const search::Options& on, const search::Options& off) {
  verify::Verifier verifier(g);
  auto [a, b] = test::runBothComplete(g, verifier, on, off);
  INFO(a.stats.states << " states, " << b.stats.states << " without the term");
  REQUIRE(a.best >= 0);
  test::checkSameFront(a, b);
  CHECK(a.stats.states < b.stats.states);
}

// The whole space of g under o, with and without the charges for exps
// still to make and values every completion reads.
static void checkExpChargesOnlyPrune(const ir::Graph& g, const search::Options& o) {
  search::Options off = o;
  off.chargeExpsStillToMake = false;
  off.chargeUnreadValues = false;
  checkOnlyPrunes(g, o, off);
}

// QKNorm+GQA at reduced shapes: its plans include a first kernel that
// saves the norms or the scores and a last kernel that makes every exp,
// and three-kernel plans.
static ir::Graph qknormSmall(int keys = 256) {
  std::optional<ir::Graph> g = parse::parseString(fmt::format(R"(graph qknorm_gqa {{
  Q = input f16[2, 32, 64]
  K = input f16[2, 64, {0}]
  V = input f16[2, {0}, 64]
  S = matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1))
  O = matmul(softmax(S, dim=-1), V)
  output O
}})",
                                                              keys),
                                                  "qknorm_small.mg", std::cerr);
  REQUIRE(g);
  return *g;
}

// The model's bounds, one thread (what is pruned does not depend on
// timing once the best is seeded), and the space's limits.
static search::Options oneThreadWithin(int kernels, int discrepancies) {
  search::Options o = modelOptions(0, true);
  o.jobs = 1;
  o.limits.maxKernels = kernels;
  o.limits.maxDiscrepancies = discrepancies;
  return o;
}

TEST_CASE("exps still to make and values every completion reads: the same front with and without their charges",
          "[search][bound]") {
  // GQA (the example), two kernels: until a body has an exp, a kernel that
  // saves guarded partials, or a last kernel after kernels that made none,
  // is charged the guard's sub and exp over every element of the scores a
  // block covers; an intermediate kernel with a for-loop is charged the
  // reads of its in-loop values no operator reads yet (no completion saves
  // them). docs/search.md, "Exps still to make". Both only prune: the same
  // candidates, text and order, with fewer states.
  std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/gqa.mg", MIRAGE_EXAMPLES_DIR), std::cerr);
  REQUIRE(g);
  checkExpChargesOnlyPrune(*g, gqaTwoKernels());
}

TEST_CASE("exps still to make after a kernel that makes none: QKNorm+GQA, the same front with and without the charges",
          "[search][bound]") {
  // QKNorm+GQA at reduced shapes, the whole default space (the last
  // kernel's exps: the scores' own traffic where no tensor holds them, the
  // reads of the softmax's two sums). The charges only prune.
  search::Options o = modelOptions(0, true);
  o.jobs = 1;
  checkExpChargesOnlyPrune(qknormSmall(), o);
}

TEST_CASE("the last kernel before it begins: the same front with and without its floor", "[search][bound]") {
  // Where neither the kernel before the last nor a closed one makes an
  // exp, the last kernel makes them all and loads V's tile (or a result as
  // large) in every block: its least floor over its configurations is
  // charged to the states of the kernel before it (docs/search.md, "The
  // last kernel before it begins"). It only prunes: QKNorm+GQA with the
  // example's keys (V's tiles are what the floor is made of), two kernels,
  // two discrepancies; and with the best known from the start (so that
  // what is pruned does not depend on when the verifier accepts a
  // candidate), the same front in fewer states. And no template of the
  // space with one discrepancy costs less than the bound of a state on the
  // way to it (94 templates, 10M states).
  const ir::Graph g = qknormSmall(4096);
  verify::Verifier verifier(g);
  search::Options o = oneThreadWithin(2, 2);
  search::Options off = o;
  off.chargeLastKernel = false;
  auto [a, b] = test::runBothComplete(g, verifier, o, off);
  REQUIRE(a.best >= 0);
  test::checkSameFront(a, b);
  o.seeds = off.seeds = {a.candidates[static_cast<size_t>(a.best)].graph};
  checkOnlyPrunes(g, o, off);
  // Pruning by none of the bounds: the bound of every state on the way to
  // every template of the space, this floor included, against its cost.
  search::Options all = modelOptions(120, true);
  all.limits.maxKernels = 2;
  all.limits.maxDiscrepancies = 1;
  checkBoundsUnderCosts(g, verifier, all);
}

TEST_CASE("the operand a contraction's partner needs: the same front with and without its charge",
          "[search][bound]") {
  // LayerNorm+Linear (the example): an intermediate kernel that has not
  // read W leaves the product with W to the kernels after it, which must
  // read as many values as normalized X has degrees of freedom
  // (operand_flow.h; docs/search.md, "The operand a contraction's partner
  // needs"). Before its close such a kernel was charged W and the output
  // alone; with the charge its states whose only completions tie the best
  // are pruned. Two kernels, two discrepancies: the same front, and with
  // the best known from the start (so that what is pruned does not depend
  // on when the verifier accepts a candidate), the same front in fewer
  // states.
  std::optional<ir::Graph> g = parse::parseFile(fmt::format("{}/layernorm_linear.mg", MIRAGE_EXAMPLES_DIR), std::cerr);
  REQUIRE(g);
  verify::Verifier verifier(*g);
  search::Options o = oneThreadWithin(2, 2);
  search::Options off = o;
  off.chargeOperandFlow = false;
  auto [a, b] = test::runBothComplete(*g, verifier, o, off);
  REQUIRE(a.best >= 0);
  test::checkSameFront(a, b);
  o.seeds = off.seeds = {a.candidates[static_cast<size_t>(a.best)].graph};
  checkOnlyPrunes(*g, o, off);
  // Pruning by none of the bounds: the bound of every template of the
  // two-kernel space with one discrepancy, the charge at each close
  // included (a state's charge before its close is at most the charge at
  // the close of each of its completions: the same formula, with less
  // carried), against its cost.
  search::Options all = modelOptions(120, true);
  all.limits.maxKernels = 2;
  all.limits.maxDiscrepancies = 1;
  checkBoundsUnderCosts(*g, verifier, all);
}

TEST_CASE("loops that cannot accumulate: no body, and the same front without the skip", "[search][bound]") {
  // QKNorm+GQA, two kernels, at shapes where the grid splits the query
  // rows and the keys: configurations whose for-loop walks a label the
  // grid also splits, or one the program never sums over (the query rows,
  // the batch, V's head dim), have no accumulator, so no body closes or
  // completes (docs/search.md, "Loops that cannot accumulate"). Skipping
  // them, and refusing every sum over those labels, changes nothing the
  // search finds, with the bound and without it.
  std::optional<ir::Graph> parsed = parse::parseString(R"(graph qknorm_rows {
  Q = input f16[1, 256, 64]
  K = input f16[1, 64, 2048]
  V = input f16[1, 2048, 64]
  S = mul(matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1)), 0.125)
  O = matmul(softmax(S, dim=-1), V)
  output O
})",
                                                       "qknorm_rows.mg", std::cerr);
  REQUIRE(parsed);
  const ir::Graph& g = *parsed;
  search::Options o = oneThreadWithin(2, 0);
  search::Options off = o;
  off.skipLoopsWithoutAccumulator = false;
  off.refuseSumsOverUnsummedLabels = false;
  verify::Verifier verifier(g);
  auto [a, b] = test::runBothComplete(g, verifier, o, off);
  REQUIRE(a.best >= 0);
  test::checkSameFront(a, b);
  // With the best known from the start, so that what the bound prunes
  // does not depend on when the verifier accepts a candidate.
  o.seeds = off.seeds = {a.candidates[static_cast<size_t>(a.best)].graph};
  checkOnlyPrunes(g, o, off);
  // Without the bound: the same templates.
  o.seeds = off.seeds = {};
  o.pruneByBound = off.pruneByBound = false;
  auto [c, d] = test::runBothComplete(g, verifier, o, off);
  INFO(c.stats.states << " states, " << d.stats.states << " without the skip");
  test::checkSameFront(c, d);
  CHECK(c.stats.templates == d.stats.templates);
  CHECK(c.stats.states < d.stats.states);
}

// QKNorm+GQA (the example) and its best plan (11.99 us, from a default
// run: the scores, normalized, then the softmax streamed over them with
// V), checked equivalent.
static std::pair<ir::Graph, ir::Graph> qknormWithBest() {
  std::optional<ir::Graph> example =
      parse::parseFile(fmt::format("{}/qknorm_gqa.mg", MIRAGE_EXAMPLES_DIR), std::cerr);
  REQUIRE(example);
  std::optional<ir::Graph> best = parse::parseString(R"(graph qknorm_gqa {
  Q = input f16[2, 256, 64]
  K = input f16[2, 64, 4096]
  V = input f16[2, 4096, 64]
  K1_0 = kernel(Q, K) grid=[2, 4, 32] forloop=1 {
    t0 = tile(Q, imap={x:0, y:1})
    t1 = tile(K, imap={x:0, z:2})
    t2 = square(t1)
    t3 = reduce_sum(t2, dim=1)
    t4 = div(t3, 64)
    t5 = square(t0)
    t6 = sqrt(t4)
    t7 = div(t1, t6)
    t8 = reduce_sum(t5, dim=2)
    t9 = div(t8, 64)
    t10 = sqrt(t9)
    t11 = div(t0, t10)
    t12 = matmul(t11, t7)
    t13 = div(t12, 8)
    t14 = accum(t13)
    save(t14, K1_0, omap={x:0, y:1, z:2})
  }
  O = kernel(V, K1_0) grid=[2, 32, 4] forloop=8 {
    t15 = tile(V, imap={x:0, z:2}, fmap=1)
    t16 = tile(K1_0, imap={x:0, y:1}, fmap=2)
    t17 = reduce_max(t16, dim=2)
    t18 = scan(t17, op=max)
    t19 = sub(t16, t18)
    t20 = exp(t19)
    t21 = matmul(t20, t15)
    t22 = reduce_sum(t20, dim=2)
    t23 = accum(t21, rescale=t18)
    t24 = accum(t22, rescale=t18)
    t25 = div(t23, t24)
    save(t25, O, omap={x:0, y:1, z:2})
  }
  output O
})",
                                                     "qknorm_best.mg", std::cerr);
  REQUIRE(best);
  verify::Verifier verifier(*example);
  REQUIRE(verifier.check(*best).equivalent);
  return {*example, *best};
}

// QKNorm+GQA's three-kernel space within `discrepancies`, its best seeded
// (so that what is pruned does not depend on when the verifier accepts a
// candidate), with a bound's term and without it (`turnOff`).
static void checkSeededQknormOnlyPrunes(int discrepancies, void (*turnOff)(search::Options&),
                                        void (*inBoth)(search::Options&) = nullptr) {
  auto [example, best] = qknormWithBest();
  search::Options on = oneThreadWithin(3, discrepancies);
  if (inBoth) inBoth(on);
  search::Options off = on;
  turnOff(off);
  on.seeds = off.seeds = {best};
  checkOnlyPrunes(example, on, off);
}

TEST_CASE("exps here or in the last kernel: the same front with and without the case split", "[search][bound]") {
  // A kernel before the last that may make the exps itself is bounded in
  // both cases, the exps charged to it or the last kernel's floor to the
  // future, and pruned where both are beaten (docs/search.md, "The last
  // kernel before it begins"). The middle kernels of QKNorm+GQA's
  // three-kernel plans are such kernels: the example, three kernels, no
  // discrepancy, with the best known from the start, gives the same front
  // in fewer states (29,513 against 182,231). And with pruning by no
  // bound, no template of the reduced program's three-kernel space costs
  // less than the bound of a state on the way to it (739,000 states).
  checkSeededQknormOnlyPrunes(0, [](search::Options& off) { off.splitExpCases = false; });
  const ir::Graph g = qknormSmall(4096);
  verify::Verifier small(g);
  search::Options all = modelOptions(120, true);
  all.limits.maxKernels = 3;
  all.limits.maxDiscrepancies = 0;
  checkBoundsUnderCosts(g, small, all);
}

TEST_CASE("the exps' argument read, and the exps a last kernel that makes none reads: the same front with and without",
          "[search][bound]") {
  // A kernel that makes the exps tiles what their argument is made of: K,
  // or a result that holds its part with the head dim, or the scores'
  // labels; and where it makes them and a last kernel that makes none
  // reads V, it saves every exp and that last kernel reads them
  // (docs/search.md, "The exps' argument read"). QKNorm+GQA's three-kernel
  // plans have such middle kernels: the example, three kernels, one
  // discrepancy, with the best known from the start, gives the same front
  // in fewer states (60,123 against 289,605).
  checkSeededQknormOnlyPrunes(1, [](search::Options& off) { off.readExpArguments = false; });
}

TEST_CASE("the exps a last kernel that makes none reads, a tile per block: the same front with and without",
          "[search][bound]") {
  // Each block of a last kernel that makes no exp reads its rows' exps
  // over every key, as it reads V's tile: the last kernel's floor has both
  // tiles (docs/search.md, "The exps a last kernel reads, a tile per
  // block"). The example, three kernels, one discrepancy, its best seeded
  // (without the floor of the two kernels after a first kernel of three,
  // which prunes most of the first kernels this term's middle kernels
  // follow): the same front in fewer states.
  checkSeededQknormOnlyPrunes(
      1, [](search::Options& off) { off.lastReadsExpTiles = false; },
      [](search::Options& both) { both.chargeTwoKernelFuture = false; });
}

TEST_CASE("flow inputs decided among more than four open inputs: the same front with and without", "[search][bound]") {
  // A middle kernel after a first kernel with four results has five
  // inputs open (V and the results): each choice of V's (tiled here, or
  // left to the last kernel with its floor) is bounded, the others taking
  // their least (docs/search.md, "Flow inputs decided"). The example,
  // three kernels, two discrepancies, its best seeded: the same front in
  // fewer states. Without the floor of the two kernels after a first
  // kernel of three, which prunes those first kernels before any middle
  // kernel is searched.
  checkSeededQknormOnlyPrunes(
      2, [](search::Options& off) { off.decideFlowInputs = false; },
      [](search::Options& both) { both.chargeTwoKernelFuture = false; });
}

TEST_CASE("the two kernels after a first kernel of three: the same front with and without their floor",
          "[search][bound]") {
  // A first kernel of three that makes no exp leaves the exps to the two
  // kernels after it, one of which reads V's tile (or a result as large)
  // in every block: their least floor is charged to its states
  // (docs/search.md, "The two kernels after a first kernel of three"). The
  // example, three kernels, two discrepancies, its best seeded: the same
  // front in fewer states. The reduced program's three-kernel space checks
  // it against the model with every other term ("exps here or in the last
  // kernel").
  checkSeededQknormOnlyPrunes(2, [](search::Options& off) { off.chargeTwoKernelFuture = false; });
}

TEST_CASE("the argument a last kernel makes the exps of: the same front with and without", "[search][bound]") {
  // A last kernel that makes the exps after a kernel not yet closed reads,
  // per pairing of their argument, the pairing made or the input's part of
  // the operand: its floor has one such tile per pairing (docs/search.md,
  // "The argument a last kernel makes the exps of"). QKNorm+GQA's
  // loopless scores kernels that make the scores another way (four and
  // more off-program values) are what it prunes: the example, two
  // kernels, four discrepancies, its best seeded, gives the same front in
  // fewer states. "The last kernel before it begins" checks the bound, this
  // term included, against every template of the reduced program's
  // two-kernel space.
  auto [example, best] = qknormWithBest();
  search::Options on = oneThreadWithin(2, 4);
  search::Options off = on;
  off.lastMakesFromArgument = false;
  on.seeds = off.seeds = {best};
  checkOnlyPrunes(example, on, off);
}

