// Programs with layout operators (reshape, concat, slice) are searched in
// segments between them (lib/search/segments.h): the split, the stitch, and
// a search end to end.
#include <catch2/catch.hpp>

#include <sstream>

#include "mirage/ir/layout.h"
#include "mirage/parse/parser.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"
#include "segments.h"

using namespace mirage;

namespace {

ir::Graph parseText(const char* text) {
  std::ostringstream err;
  auto g = parse::parseString(text, "test.mg", err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

const char* kProgram = R"(graph cut {
  X = input f16[8, 64]
  W = input f16[64, 64]
  Y = matmul(X, W)
  H = reshape(Y, shape=[8, 2, 32])
  M = softmax(H, dim=-1)
  L = slice(X, dim=1, start=0, end=32)
  R = slice(X, dim=1, start=32, end=64)
  Z = add(concat(exp(R), L, dim=1), 1)
  output M, Z
})";

}  // namespace

TEST_CASE("a program is cut at its layout ops into stages of connected pieces") {
  ir::Graph g = parseText(kProgram);
  std::vector<search::Segment> segs = search::splitAtLayoutOps(g);
  // Stage 0: the matmul, and the exp of the slice R (a view of the input
  // X that only exp reads, so no cut), two pieces; stage 1: the softmax
  // (after the reshape); stage 2: the add after the concat (whose operand
  // L is a copy: a layout op reads it).
  REQUIRE(segs.size() == 4);
  CHECK(segs[0].stage == 0);
  CHECK(segs[0].program.outputs.size() == 1);
  CHECK(segs[1].stage == 0);
  CHECK(segs[2].stage == 1);
  CHECK(segs[3].stage == 2);
  for (const search::Segment& s : segs) {
    CHECK(s.inputs.size() == s.program.inputs.size());
    CHECK(s.outputs.size() == s.program.outputs.size());
    for (const ir::Op& op : s.program.ops) CHECK_FALSE(ir::isLayoutOp(op.kind));
  }
}

TEST_CASE("a program without layout ops is not cut") {
  ir::Graph g = parseText("graph g {\n  X = input f16[4, 4]\n  Y = exp(X)\n  output Y\n}\n");
  CHECK(search::splitAtLayoutOps(g).empty());
}

TEST_CASE("the segments stitched back are the program") {
  ir::Graph g = parseText(kProgram);
  std::vector<search::Segment> segs = search::splitAtLayoutOps(g);
  std::vector<const ir::Graph*> chosen;
  for (const search::Segment& s : segs) chosen.push_back(&s.program);
  ir::Graph back;
  REQUIRE(search::stitchSegments(g, segs, chosen, back).empty());
  CHECK(ir::countKernels(back) == ir::countKernels(g));
  verify::Verdict v = verify::checkEquivalent(g, back);
  INFO(v.message);
  CHECK(v.equivalent);
}

TEST_CASE("the search fuses each segment and verifies the stitched whole") {
  ir::Graph g = parseText(kProgram);
  verify::Verifier verifier(g);
  search::Options o;
  o.timeLimitSeconds = 6;
  o.jobs = 2;
  search::Result r = search::runSearch(g, verifier, o);
  REQUIRE(r.candidates.size() == 2);
  const search::Candidate& best = r.candidates[static_cast<size_t>(r.best)];
  // The input: 1 matmul + 5 for the softmax + exp + add, and 2 copy
  // kernels (the concat, and the slice L it reads); the reshape and the
  // slice R, which only exp's kernel reads, are views.
  CHECK(r.candidates[0].kernels == 10);
  // The softmax in one kernel, exp and add one each at most.
  CHECK(best.kernels <= 6);
  CHECK(best.errorBound < 1e-9);
  // The segments' searches add up to one report that says how it ended
  // (cli.md: exhausted, bound or time_limit), not an empty ending.
  CHECK((r.stats.endedBy == "exhausted" || r.stats.endedBy == "bound" || r.stats.endedBy == "time_limit"));
  CHECK(r.stats.complete == (r.stats.endedBy != "time_limit"));
}
