// Shrinker tests with a synthetic failure: a program "fails" when it has
// an operator of one kind. Written once for the shrink tests of every
// operator family (shrink_test.cpp, layout_test.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>

#include "mirage/fuzz/generate.h"
#include "mirage/fuzz/shrink.h"
#include "mirage/ir/check.h"
#include "mirage/ir/graph.h"

namespace mirage::test {

inline bool hasOp(const ir::Graph& g, ir::OpKind k) {
  for (const ir::Op& op : g.ops)
    if (op.kind == k) return true;
  return false;
}

// Shrinks up to `wanted` generated programs of fuzz stream `stream` (among
// its first `seeds`) that have a `culprit` and at least six statements,
// within `budget` tests each, failing them by that operator alone; hands
// each original, its shrunk form and the stats to `check`. Returns how many
// it shrank.
template <class Check>
int shrinkSyntheticFailures(ir::OpKind culprit, uint64_t stream, uint64_t seeds, int wanted, int budget,
                            Check check) {
  int shrunk = 0;
  for (uint64_t seed = 0; seed < seeds && shrunk < wanted; ++seed) {
    ir::Graph g = fuzz::generateProgram(fuzz::caseSeed(stream, seed));
    if (!hasOp(g, culprit) || fuzz::countStatements(g) < 6) continue;
    ++shrunk;
    auto test = [&](const ir::Graph& p) {
      REQUIRE(ir::checkProgram(p).empty());
      return hasOp(p, culprit) ? fuzz::Failure::Crash : fuzz::Failure::None;
    };
    fuzz::ShrinkStats st;
    ir::Graph small = fuzz::shrink(g, fuzz::Failure::Crash, test, budget, &st);
    check(g, small, st);
  }
  return shrunk;
}

}  // namespace mirage::test
