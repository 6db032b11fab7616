// The pairings a softmax's argument is made of (Context::expArgSources):
// a body that makes its exps tiles what gives each one, so the pairings
// must be the matmuls below the argument, and nothing else (docs/search.md,
// "The exps' argument read").
#include <catch2/catch.hpp>

#include <deque>
#include <iostream>
#include <string>

#include "mirage/parse/parser.h"
#include "space.h"

using namespace mirage;

namespace {

search::Context contextOf(const std::string& text, search::ProgramLabels& labels, const search::Limits& limits) {
  std::optional<ir::Graph> g = parse::parseString(text, "sources.mg", std::cerr);
  REQUIRE(g);
  static std::deque<ir::Graph> keep;  // the context points into its program
  keep.push_back(*g);
  labels = search::analyzeLabels(keep.back());
  search::Context ctx;
  search::initContext(ctx, keep.back(), labels, limits);
  return ctx;
}

}  // namespace

TEST_CASE("exp sources: the matmul's operands pair their inputs over the head dim", "[search][exp]") {
  search::ProgramLabels labels;
  search::Limits limits;
  search::Context ctx = contextOf(R"(graph a {
  Q = input f16[2, 32, 64]
  K = input f16[2, 64, 256]
  V = input f16[2, 256, 64]
  S = matmul(rms_norm(Q, dim=-1), rms_norm(K, dim=1))
  O = matmul(softmax(S, dim=-1), V)
  output O
})",
                                  labels, limits);
  REQUIRE(ctx.expArgSources.size() == 1);
  std::set<int> inputs;
  for (const search::Context::ExpArgSource& s : ctx.expArgSources[0]) {
    inputs.insert(s.input);
    // The head dim (Q's last, K's first after the batch), and the scores' labels.
    CHECK(labels.extent[static_cast<size_t>(s.contracted)] == 64);
    CHECK(s.paired.size() == 3);
  }
  CHECK(inputs == std::set<int>{0, 1});  // Q and K, not V
}

TEST_CASE("exp sources: an input the argument reads only through a statistic pairs nothing", "[search][exp]") {
  // The argument is Y scaled by X's rms over d: a body can make it from a
  // result that holds the rms alone, with neither d nor Y's labels, so X
  // must not be asked for with d.
  search::ProgramLabels labels;
  search::Limits limits;
  search::Context ctx = contextOf(R"(graph b {
  X = input f16[32, 64]
  Y = input f16[32, 256]
  V = input f16[256, 64]
  R = reduce_mean(mul(X, X), dim=1)
  O = matmul(softmax(div(Y, sqrt(R)), dim=-1), V)
  output O
})",
                                  labels, limits);
  REQUIRE(ctx.expArgSources.size() == 1);
  CHECK(ctx.expArgSources[0].empty());
}
