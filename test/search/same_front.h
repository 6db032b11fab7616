// Two complete searches of one program that must return the same front
// (shared by the bound and schedule tests).
#pragma once

#include <catch2/catch.hpp>

#include <utility>

#include "mirage/ir/printer.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"

namespace mirage::test {

// b returns a's candidates, text and order, and a's best.
inline void checkSameFront(const search::Result& a, const search::Result& b) {
  REQUIRE(b.candidates.size() == a.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i)
    CHECK(ir::printGraph(b.candidates[i].graph) == ir::printGraph(a.candidates[i].graph));
  CHECK(b.best == a.best);
}

// The program searched under each of two options; both searches complete.
inline std::pair<search::Result, search::Result> runBothComplete(const ir::Graph& g, const verify::Verifier& verifier,
                                                                 const search::Options& first,
                                                                 const search::Options& second) {
  search::Result a = search::runSearch(g, verifier, first);
  search::Result b = search::runSearch(g, verifier, second);
  REQUIRE(a.stats.complete);
  REQUIRE(b.stats.complete);
  return {std::move(a), std::move(b)};
}

}  // namespace mirage::test
