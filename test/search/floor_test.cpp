// The floor memo keeps only the cheapest extent choices of each key
// (floor.cpp, FloorPointList): what it keeps must be exactly the first
// points of the complete list, and what it leaves out must cost at least
// the floor it reports for them, or a bound that walks past the kept points
// would be wrong.
#include <catch2/catch.hpp>

#include <iostream>
#include <limits>

#include "mirage/parse/parser.h"
#include "space.h"

using namespace mirage;

TEST_CASE("floor memo: the kept points are the complete list's first, the rest cost at least restUs", "[floor]") {
  std::optional<ir::Graph> g = parse::parseString(
      "graph r { X = input f16[16, 4096]\n W = input f16[4096, 6144]\n Y = matmul(X, W)\n output Y }", "test.mg",
      std::cerr);
  REQUIRE(g);
  search::ProgramLabels labels = search::analyzeLabels(*g);
  search::Limits limits;
  search::Context ctx;
  search::initContext(ctx, *g, labels, limits);
  // Any cost that grows with the work will do; this one has many ties,
  // across which the two lists must still agree point by point.
  ctx.kernelFloor = [](const search::KernelFloor& f) {
    return std::floor((f.blockLoadBytes / 4096 + static_cast<double>(f.blocks) / 64 + static_cast<double>(f.forloop)) / 4);
  };
  search::Plan plan;
  for (size_t i = 0; i < g->inputs.size(); ++i) {
    search::Tensor t;
    t.shape = g->value(g->inputs[i]).shape;
    t.labels = labels.ofValue[static_cast<size_t>(g->inputs[i])];
    t.kernel = -1;
    t.index = static_cast<int>(i);
    plan.tensors.push_back(t);
  }
  // The grid splits the rows and the columns of Y, the for-loop walks the
  // contraction: a few hundred extent choices.
  const search::Labels& y = labels.ofValue[static_cast<size_t>(g->outputs[0])];
  const search::Label k = labels.ofValue[static_cast<size_t>(g->inputs[0])][1];
  std::vector<search::GridAxis> grid = {{y[0], false}, {y[1], false}};
  std::vector<search::FloorSave> saves = {{y, 2}};
  search::FloorPoints kept = search::kernelFloorPoints(ctx, plan, grid, k, {0, 1}, saves, 0);
  search::FloorPoints all = search::kernelFloorPoints(ctx, plan, grid, k, {0, 1}, saves, 0, true);
  REQUIRE(all->points.size() > search::FloorPointList::kMostKept);
  REQUIRE(kept->truncated());
  REQUIRE(!all->truncated());
  REQUIRE(kept->points.size() == search::FloorPointList::kMostKept);
  for (size_t i = 0; i < kept->points.size(); ++i) {
    INFO("point " << i);
    CHECK(kept->points[i].us == all->points[i].us);
    CHECK(kept->points[i].forloop == all->points[i].forloop);
    CHECK(kept->points[i].parts == all->points[i].parts);
    if (i > 0) CHECK(all->points[i - 1].us <= all->points[i].us);
  }
  CHECK(kept->restUs == all->points[kept->points.size()].us);
  for (size_t i = kept->points.size(); i < all->points.size(); ++i) CHECK(all->points[i].us >= kept->restUs);
  // The kept list is what the memo serves from then on; the complete one
  // is never kept.
  CHECK(search::kernelFloorPoints(ctx, plan, grid, k, {0, 1}, saves, 0) == kept);
  CHECK(search::kernelFloorPoints(ctx, plan, grid, k, {0, 1}, saves, 0, true) != all);
}
