// Two refusals that read the labels a sum runs over, which the abstract
// expressions forget (docs/search.md, "No product across a sum" and "No
// sum over a block's part of a parallel label"): every body they drop must
// be one that the verifier refutes, and the fused forms must still come out.
#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "analysis.h"
#include "space.h"

using namespace mirage;
using mirage::test::Analysis;
using mirage::test::analyze;

namespace {

// One-kernel bodies emitted at `discrepancies`, each instantiated at its
// first extent choice and printed, with whether it passes the verifier's
// pre-check; and the states visited.
struct Bodies {
  std::map<std::string, bool> equivalent;  // printed μGraph -> pre-check passed
  int64_t states = 0;
  std::map<int, int64_t> statesByConfig;
};

Bodies enumerate(Analysis& a, int discrepancies) {
  verify::Verifier verifier(a.graph);
  std::atomic<bool> stop{false};
  Bodies out;
  a.ctx.stopped = [] { return false; };
  a.ctx.emit = [&](const search::Plan& p) {
    std::vector<search::ExtentChoice> ch = search::chooseExtents(
        a.graph, a.labels, p, a.limits, [](const ir::Graph& x) { return search::estimateCostUs(x); }, stop);
    if (ch.empty()) return;
    out.equivalent.emplace(ch.front().text, verifier.precheck(ch.front().graph));
  };
  for (int c = 0; c < search::countFirstConfigs(a.ctx, 1); ++c) {
    const int64_t before = a.ctx.stats.states;
    search::searchPlans(a.ctx, 1, discrepancies, c);
    out.statesByConfig[c] = a.ctx.stats.states - before;
  }
  out.states = a.ctx.stats.states;
  return out;
}

}  // namespace

TEST_CASE("sum labels: which programs multiply a value by a sum over one of its labels", "[sum_labels]") {
  // RMSNorm divides by a sqrt of the sum: the sum is inside an atom.
  CHECK(analyze("graph r { X = input f32[4, 8]\n O = rms_norm(X)\n output O }")->ctx.productsAcrossSums == 0);
  // Attention: the sums over keys and over the head dim are inside exps,
  // divisors and the contraction with V, never multiplied by a value with
  // their label.
  CHECK(analyze("graph a { Q = input f32[2, 4, 8]\n K = input f32[2, 8, 16]\n V = input f32[2, 16, 8]\n"
                " O = matmul(softmax(matmul(Q, K)), V)\n output O }")
            ->ctx.productsAcrossSums == 0);
  // LayerNorm squares x - mean(x): x times a sum over x's own label.
  CHECK(analyze("graph l { X = input f32[4, 8]\n O = layer_norm(X)\n output O }")->ctx.productsAcrossSums ==
        search::Context::kSquareAcrossSum);
  // A product written out, and one in a quotient's numerator.
  CHECK(analyze("graph p { X = input f32[4, 8]\n O = mul(X, reduce_sum(X, dim=1))\n output O }")
            ->ctx.productsAcrossSums == search::Context::kMulAcrossSum);
  CHECK(analyze("graph q { X = input f32[4, 8]\n Y = input f32[4, 8]\n"
                      " O = div(reduce_sum(X, dim=1), add(X, Y))\n output O }")
            ->ctx.productsAcrossSums == search::Context::kDivAcrossSum);
  // Y's columns are not X's (no operator relates them): not a product
  // across the sum over X's columns.
  CHECK(analyze("graph u { X = input f32[4, 8]\n Y = input f32[4, 8]\n"
                " O = div(reduce_sum(X, dim=1), Y)\n output O }")
            ->ctx.productsAcrossSums == 0);
  // Dividing by the sum inverts it into an atom: no product.
  CHECK(analyze("graph d { X = input f32[4, 8]\n O = div(X, reduce_sum(X, dim=1))\n output O }")
            ->ctx.productsAcrossSums == 0);
}

// Enumerates one-kernel bodies of each program with a refusal and without
// it (`disable` turns it off): the refusal only drops bodies, each one it
// drops is refuted by the verifier's pre-check, some equivalent body is
// kept, and it drops states. Returns the states dropped.
int64_t dropsOnlyRefuted(const std::vector<const char*>& programs, const std::function<void(search::Context&)>& disable,
                         int maxOps = 8) {
  int64_t dropped = 0;
  for (const char* text : programs) {
    INFO(text);
    auto with = analyze(text, maxOps);
    auto without = analyze(text, maxOps);
    disable(without->ctx);
    for (int disc : {1, 2}) {
      Bodies w = enumerate(*with, disc);
      Bodies wo = enumerate(*without, disc);
      INFO("discrepancies " << disc);
      int equivalentWith = 0;
      for (const auto& [body, ok] : w.equivalent) {
        INFO(body);
        CHECK(wo.equivalent.count(body) == 1);  // the refusal only drops
        equivalentWith += ok;
      }
      CHECK(equivalentWith > 0);
      for (const auto& [body, ok] : wo.equivalent) {
        if (w.equivalent.count(body)) continue;
        INFO("dropped:\n" << body);
        CHECK_FALSE(ok);
      }
      CHECK(w.states <= wo.states);
      dropped += wo.states - w.states;
    }
  }
  return dropped;
}

// x · Σ_d x reads as Σ_d x² in the abstract expressions, so without the
// refusal the normalizations below build it (and Σ_d x, which only such a
// product can use) as if it were the program's sum of squares.
TEST_CASE("sum labels: the products dropped are all refuted, the fused normalization is kept", "[sum_labels]") {
  const std::vector<const char*> programs = {
      "graph b { X = input f32[4, 8]\n Y = div(X, sqrt(reduce_sum(square(X), dim=1)))\n output Y }",
      "graph w { X = input f32[4, 8]\n W = input f32[4, 8]\n O = mul(rms_norm(X), W)\n output O }",
  };
  for (const char* text : programs) CHECK(analyze(text)->ctx.productsAcrossSums == 0);
  CHECK(dropsOnlyRefuted(programs, [](search::Context& c) {
          c.productsAcrossSums = search::Context::kAnyProductAcrossSum;
        }) > 0);
}

// LayerNorm squares x − mean(x), so its bodies may square across the sum
// over its columns, but only into one of its terms: x·Σx, Σx²/x and
// (x + mean x)² are dropped (the first two read as Σx² and Σx), and
// every body that drops is refuted while the fused normalization is kept.
TEST_CASE("sum labels: LayerNorm squares across its sum only into its own terms", "[sum_labels]") {
  const std::vector<const char*> programs = {
      "graph l { X = input f32[4, 8]\n O = layer_norm(X, eps=0.5)\n output O }",
  };
  CHECK(dropsOnlyRefuted(programs, [](search::Context& c) {
          c.productsAcrossSums = search::Context::kAnyProductAcrossSum;
        }, 10) > 0);
}

// Each term a body sums over a label has the inputs with that label, at
// the exponents, of a term the program sums over it (Context::labelSumTerms,
// sumsProgramTerms): Σ_d K where the program sums K² and Q·K over d is not
// part of any of them.
TEST_CASE("sum labels: a body sums the program's terms", "[sum_labels]") {
  auto a = analyze(
      "graph q { Q = input f32[2, 4, 8]\n K = input f32[2, 8, 16]\n V = input f32[2, 16, 8]\n"
      " S = matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1))\n O = matmul(softmax(S, dim=-1), V)\n output O }");
  search::Context& c = a->ctx;
  search::ExprTable& x = c.exprs;
  const search::Label d = a->labels.ofValue[static_cast<size_t>(a->graph.inputs[1])][1];
  const search::Label keys = a->labels.ofValue[static_cast<size_t>(a->graph.inputs[1])][2];
  const search::ExprId q = x.input(0), k = x.input(1), v = x.input(2);
  CHECK(c.sumsProgramTerms(d, x.mul(k, k), 0));
  CHECK(c.sumsProgramTerms(d, x.mul(q, q), 0));
  CHECK(c.sumsProgramTerms(d, x.mul(q, k), 0));
  CHECK(c.sumsProgramTerms(d, x.div(x.mul(q, k), x.func(ir::OpKind::Sqrt, x.mul(q, q))), 0));  // atoms do not count
  CHECK_FALSE(c.sumsProgramTerms(d, k, 0));
  CHECK_FALSE(c.sumsProgramTerms(d, x.div(q, k), 0));
  CHECK_FALSE(c.sumsProgramTerms(d, x.add(x.mul(k, k), k), 0));  // every term must be one
  // A value summed over d already, or holding a kernel result, is not asked.
  CHECK(c.sumsProgramTerms(d, k, uint64_t{1} << d));
  CHECK(c.sumsProgramTerms(d, k, 1));
  // Over the keys: the probabilities times V, and the probabilities alone.
  CHECK(c.sumsProgramTerms(keys, x.mul(x.exp(x.mul(q, k)), v), 0));
  CHECK(c.sumsProgramTerms(keys, x.exp(x.mul(q, k)), 0));
  CHECK_FALSE(c.sumsProgramTerms(keys, x.mul(x.exp(x.mul(q, k)), x.mul(v, v)), 0));
  // A program with a layout operator records nothing: nothing is refused.
  auto r = analyze("graph r { X = input f32[4, 8]\n Y = reshape(X, shape=[32])\n O = reduce_sum(square(Y), dim=0)\n output O }");
  CHECK(r->ctx.sumsProgramTerms(r->labels.ofValue[static_cast<size_t>(r->graph.inputs[0])][1], r->ctx.exprs.input(0), 0));

  CHECK(dropsOnlyRefuted({"graph b { X = input f32[4, 8]\n Y = div(X, sqrt(reduce_sum(square(X), dim=1)))\n output Y }",
                          "graph m { X = input f32[4, 8]\n W = input f32[8, 6]\n"
                          " Y = matmul(div(X, sqrt(reduce_sum(square(X), dim=1))), W)\n output Y }"},
                         [](search::Context& c) { c.labelSumTerms.clear(); }) > 0);
}

// A single kernel whose grid splits the normalized dim as a parallel axis
// gives each block part of the row: no sum over the row can be made, so
// the configuration has no state, and no body sums a block's part.
TEST_CASE("sum labels: no sum over a block's part of a parallel label", "[sum_labels]") {
  auto a = analyze("graph r { X = input f32[4, 64]\n O = rms_norm(X)\n output O }", 8);
  const search::Label d = a->labels.ofValue[static_cast<size_t>(a->graph.inputs[0])][1];
  Bodies b = enumerate(*a, 2);
  int splitConfigs = 0;
  std::vector<std::vector<search::GridAxis>> configs = search::firstConfigGrids(a->ctx, 1);
  REQUIRE(static_cast<int>(configs.size()) == search::countFirstConfigs(a->ctx, 1));
  for (size_t c = 0; c < configs.size(); ++c) {
    bool splitsRow = false;
    for (const search::GridAxis& ax : configs[c]) splitsRow = splitsRow || ax.label == d;
    if (!splitsRow) continue;
    ++splitConfigs;
    INFO("configuration " << c);
    CHECK(b.statesByConfig[static_cast<int>(c)] == 0);
  }
  CHECK(splitConfigs > 0);
  int equivalent = 0;
  for (const auto& [body, ok] : b.equivalent) equivalent += ok;
  CHECK(equivalent > 0);
}
