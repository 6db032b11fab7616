// A program parsed and analysed as the search starts (labels, Context), for
// tests that ask the analysis questions directly.
#pragma once

#include <catch2/catch.hpp>

#include <iostream>
#include <memory>

#include "mirage/parse/parser.h"
#include "space.h"

namespace mirage::test {

struct Analysis {
  ir::Graph graph;
  search::ProgramLabels labels;
  search::Context ctx;
  search::Limits limits;
};

inline std::unique_ptr<Analysis> analyze(const char* text, int maxOps = -1) {
  auto a = std::make_unique<Analysis>();
  std::optional<ir::Graph> g = parse::parseString(text, "test.mg", std::cerr);
  REQUIRE(g);
  a->graph = std::move(*g);
  a->labels = search::analyzeLabels(a->graph);
  if (maxOps > 0) a->limits.maxBlockOps = maxOps;
  search::initContext(a->ctx, a->graph, a->labels, a->limits);
  return a;
}

}  // namespace mirage::test
