// The layout operators in the fuzzer: over a fixed set of seeds the
// generator draws reshape (merges, splits, a -1 extent), slice (along every
// dim) and concat (two and three operands, a value beside a slice of
// itself, RoPE's rotate_half with and without its neg), placed where an
// element-wise operator, a reduction or a matmul reads them, and the RoPE
// attention motif; those programs are legal, read back through the parser,
// and the interpreter agrees with the float64 reference on them; the
// shrinker's rebuild keeps slices and reshapes legal when extents shrink;
// and a short run of the whole oracle chain passes on layout programs.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>

#include "mirage/fuzz/generate.h"
#include "mirage/fuzz/oracle.h"
#include "mirage/fuzz/sandbox.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/fuzz/shrink.h"
#include "rewrite.h"
#include "interp_agreement.h"
#include "synthetic_failure.h"

using namespace mirage;
using ir::OpKind;

namespace {

bool hasLayout(const ir::Graph& g) {
  for (const ir::Op& op : g.ops)
    if (ir::isLayoutOp(op.kind)) return true;
  return false;
}

// What the layout ops of a set of programs look like.
struct LayoutCounts {
  std::map<OpKind, int> kinds;
  int programs = 0, withLayout = 0, rope = 0;
  int inferredReshape = 0, mergeReshape = 0, splitReshape = 0;
  std::set<int> sliceDims;  // dims sliced, counted from the front
  int partialSlice = 0;
  int concat3 = 0, concatSelfSlice = 0, rotateHalf = 0, rotateNoNeg = 0;
  int feedsElementwise = 0, feedsReduction = 0, feedsMatmul = 0;

  void add(const ir::Graph& g) {
    ++programs;
    withLayout += hasLayout(g);
    rope += g.name == "fuzz_rope";
    auto producer = [&](ir::ValueId v) -> const ir::Op& { return g.producer(v); };
    // Through a neg, the slice a concat operand comes from.
    auto sliceOf = [&](ir::ValueId v, bool* negated) -> const ir::Op* {
      *negated = false;
      if (producer(v).kind == OpKind::Neg) *negated = true, v = producer(v).inputs[0];
      return producer(v).kind == OpKind::Slice ? &producer(v) : nullptr;
    };
    for (const ir::Op& op : g.ops) {
      kinds[op.kind]++;
      for (ir::ValueId in : op.inputs) {
        if (!ir::isLayoutOp(producer(in).kind)) continue;
        feedsElementwise += ir::isElementwise(op.kind);
        feedsReduction += ir::isReduction(op.kind);
        feedsMatmul += op.kind == OpKind::Matmul;
      }
      const ir::Shape& in0 = g.value(op.inputs.empty() ? 0 : op.inputs[0]).shape;
      switch (op.kind) {
        case OpKind::Reshape: {
          const ir::Shape& out = g.value(op.results[0]).shape;
          for (int64_t x : op.shapeArg) inferredReshape += x == -1;
          mergeReshape += out.size() < in0.size();
          splitReshape += out.size() > in0.size();
          break;
        }
        case OpKind::Slice:
          sliceDims.insert(op.dim);
          partialSlice += op.end - op.start < in0[static_cast<size_t>(op.dim)];
          break;
        case OpKind::Concat: {
          concat3 += op.inputs.size() == 3;
          bool sawSelf = false;
          for (ir::ValueId a : op.inputs)
            for (ir::ValueId b : op.inputs) {
              bool neg = false;
              const ir::Op* s = sliceOf(b, &neg);
              sawSelf = sawSelf || (a != b && s && s->inputs[0] == a);
            }
          concatSelfSlice += sawSelf;
          bool n0 = false, n1 = false;
          const ir::Op* hi = op.inputs.size() == 2 ? sliceOf(op.inputs[0], &n0) : nullptr;
          const ir::Op* lo = op.inputs.size() == 2 ? sliceOf(op.inputs[1], &n1) : nullptr;
          if (hi && lo && hi->inputs[0] == lo->inputs[0] && lo->start == 0 && hi->start == lo->end &&
              hi->dim == op.dim && lo->dim == op.dim &&
              hi->end == g.value(hi->inputs[0]).shape[static_cast<size_t>(op.dim)] && !n1) {
            rotateHalf += n0;
            rotateNoNeg += !n0;
          }
          break;
        }
        default: break;
      }
    }
  }
};

LayoutCounts countOver(uint64_t runSeed, int programs) {
  LayoutCounts c;
  for (int i = 0; i < programs; ++i) c.add(fuzz::generateProgram(fuzz::caseSeed(runSeed, static_cast<uint64_t>(i))));
  return c;
}

}  // namespace

TEST_CASE("the generator draws reshape, slice and concat in all their forms, where operators read them") {
  LayoutCounts c = countOver(1, 400);
  INFO("of " << c.programs << " programs " << c.withLayout << " have layout ops, " << c.rope << " are rope; reshape "
             << c.kinds[OpKind::Reshape] << " (-1: " << c.inferredReshape << ", merges " << c.mergeReshape
             << ", splits " << c.splitReshape << "), slice " << c.kinds[OpKind::Slice] << " (partial "
             << c.partialSlice << ", dims " << c.sliceDims.size() << "), concat " << c.kinds[OpKind::Concat]
             << " (three operands " << c.concat3 << ", beside a slice of itself " << c.concatSelfSlice
             << ", rotate_half " << c.rotateHalf << ", without neg " << c.rotateNoNeg << "); read by element-wise "
             << c.feedsElementwise << ", reductions " << c.feedsReduction << ", matmuls " << c.feedsMatmul);
  // Lower bounds a little under what the generator draws now (233 programs
  // with layout ops, 66 rope, 151 reshapes, 507 slices, 219 concats, ...;
  // the INFO line prints them), so that a change of the generator that
  // stops drawing a form fails here.
  CHECK(c.withLayout >= 200);
  CHECK(c.rope >= 50);
  CHECK(c.kinds[OpKind::Reshape] >= 120);
  CHECK(c.inferredReshape >= 35);
  CHECK(c.mergeReshape >= 30);
  CHECK(c.splitReshape >= 80);
  CHECK(c.kinds[OpKind::Slice] >= 400);
  CHECK(c.partialSlice >= 400);
  CHECK(c.sliceDims == std::set<int>{0, 1, 2, 3});
  CHECK(c.kinds[OpKind::Concat] >= 180);
  CHECK(c.concat3 >= 15);
  CHECK(c.concatSelfSlice >= 15);
  CHECK(c.rotateHalf >= 100);
  CHECK(c.rotateNoNeg >= 15);
  CHECK(c.feedsElementwise >= 350);
  CHECK(c.feedsReduction >= 35);
  CHECK(c.feedsMatmul >= 60);
}

TEST_CASE("programs with layout ops are legal, read back, and the interpreter agrees with float64 on them") {
  fuzz::GenOptions opt;
  int checked = 0;
  for (uint64_t i = 0; i < 300 && checked < 60; ++i) {
    ir::Graph g = fuzz::generateProgram(fuzz::caseSeed(4, i), opt);
    if (!hasLayout(g)) continue;
    ++checked;
    INFO(ir::printGraph(g));
    REQUIRE(ir::checkProgram(g).empty());
    std::string why;
    REQUIRE(parse::roundTrips(g, &why));
    for (ir::ValueId in : g.inputs) REQUIRE(ir::numElements(g.value(in).shape) <= opt.maxElements);
    for (const ir::Op& op : g.ops)
      for (ir::ValueId r : op.results) REQUIRE(ir::numElements(g.value(r).shape) <= 16 * opt.maxElements);
    // The same seed, the same program.
    REQUIRE(ir::printGraph(fuzz::generateProgram(fuzz::caseSeed(4, i), opt)) == ir::printGraph(g));
    fuzz_test::requireInterpreterAgreesWithFloat64(g, i);
  }
  CHECK(checked == 60);
}

TEST_CASE("the shrinker's rebuild keeps slices and reshapes legal when extents shrink") {
  // RoPE with d = 16 halved to 8: the rotate_half slices follow (8:16 and
  // 0:8 become 4:8 and 0:4), and a reshape whose extents no longer multiply
  // out gets one extent inferred.
  ir::Graph g;
  g.name = "t";
  g.dtype = ir::DType::F16;
  ir::ValueId x, w;
  REQUIRE(ir::addInput(g, "x", {4, 16}, &x).empty());
  REQUIRE(ir::addInput(g, "w", {2, 32}, &w).empty());
  auto add = [&](ir::Op op) {
    ir::ValueId r = ir::kNoValue;
    REQUIRE(ir::addOp(g, op, nullptr, &r).empty());
    return r;
  };
  ir::Op s;
  s.kind = OpKind::Slice;
  s.inputs = {x};
  s.dim = 1, s.start = 8, s.end = 16;
  ir::ValueId hi = add(s);
  s.start = 0, s.end = 8;
  ir::ValueId lo = add(s);
  ir::Op neg;
  neg.kind = OpKind::Neg;
  neg.inputs = {hi};
  ir::Op cat;
  cat.kind = OpKind::Concat;
  cat.inputs = {add(neg), lo};
  cat.dim = 1;
  ir::ValueId rot = add(cat);
  ir::Op rs;
  rs.kind = OpKind::Reshape;
  rs.inputs = {w};
  rs.shapeArg = {64};
  rs.inputs = {add(rs)};
  rs.shapeArg = {4, 16};
  ir::Op mul;
  mul.kind = OpKind::Mul;
  mul.inputs = {rot, add(rs)};
  g.outputs = {add(mul)};
  REQUIRE(ir::checkProgram(g).empty());

  fuzz::Edit e;
  e.extents[16] = 8;
  e.extents[32] = 16;
  std::string why;
  auto small = fuzz::rebuild(g, e, &why);
  INFO(why);
  REQUIRE(small);
  INFO(ir::printGraph(*small));
  std::vector<std::pair<int64_t, int64_t>> ranges;
  std::vector<ir::Shape> reshaped;
  for (const ir::Op& op : small->ops) {
    if (op.kind == OpKind::Slice) ranges.push_back({op.start, op.end});
    if (op.kind == OpKind::Reshape) reshaped.push_back(small->value(op.results[0]).shape);
  }
  CHECK(reshaped == std::vector<ir::Shape>{{32}, {4, 8}});
  CHECK(ranges == std::vector<std::pair<int64_t, int64_t>>{{4, 8}, {0, 4}});
  CHECK(small->value(small->outputs[0]).shape == ir::Shape{4, 8});
}

namespace {

// The first `count` programs with layout ops of run seed `runSeed`, through
// mirage-opt with the search (`seconds` each), the second verifier, the
// interpreter, float64 and the .cu on the CPU shim, each in a forked child
// as mirage-fuzz runs them; at most `maxRope` RoPE attentions (their search
// is the slowest).
void layoutChain(uint64_t runSeed, int count, double seconds, int maxRope) {
  std::set<OpKind> kinds;
  int ran = 0, kernels = 0, rope = 0;
  for (uint64_t i = 0; ran < count && i < 50 * static_cast<uint64_t>(count); ++i) {
    uint64_t seed = fuzz::caseSeed(runSeed, i);
    ir::Graph g = fuzz::generateProgram(seed);
    if (!hasLayout(g)) continue;
    if (g.name == "fuzz_rope" && rope++ >= maxRope) continue;
    ++ran;
    for (const ir::Op& op : g.ops)
      if (ir::isLayoutOp(op.kind)) kinds.insert(op.kind);
    fuzz::CaseOptions opt;
    opt.seed = seed;
    opt.optTimeLimit = seconds;
    fuzz::CaseResult r = fuzz::runIsolated([&] { return fuzz::runCase(g, opt); }, 120);
    INFO(ir::printGraph(g) << r.detail);
    CHECK(fuzz::failureLabel(r.failure) == "none");
    kernels += r.candidateHasKernels;
  }
  CHECK(ran == count);
  CHECK(kinds == std::set<OpKind>{OpKind::Reshape, OpKind::Concat, OpKind::Slice});
  CHECK(kernels >= 1);
}

}  // namespace

TEST_CASE("layout programs pass the whole oracle chain (a short fuzz run)") {
  // About 10 s on the 2-core machine. Longer: the [slow] test below, and
  // mirage-fuzz itself.
  layoutChain(7, 6, 0.5, 1);
}

TEST_CASE("layout programs pass the whole oracle chain (a longer fuzz run)", "[slow][layout]") {
  layoutChain(8, 40, 2, 10);
}

TEST_CASE("a synthetic failure in a layout op shrinks to that one op, with every extent cut down") {
  for (OpKind culprit : {OpKind::Slice, OpKind::Concat, OpKind::Reshape}) {
    INFO(ir::opName(culprit));
    int shrunk = test::shrinkSyntheticFailures(
        culprit, 9, 300, 4, 800, [&](const ir::Graph& g, const ir::Graph& small, const fuzz::ShrinkStats& st) {
          INFO(ir::printGraph(g) << "shrunk to\n" << ir::printGraph(small) << "in " << st.tests << " tests");
          CHECK(test::hasOp(small, culprit));
          CHECK(fuzz::countStatements(small) == 1);
          // Extents shrink through the op: a slice's range and a reshape's
          // shape follow (every input extent ends at 1), and a concat joins
          // two or three extents of 1.
          for (ir::ValueId in : small.inputs)
            for (int64_t e : small.value(in).shape) CHECK(e == 1);
          CHECK(ir::numElements(small.value(small.outputs[0]).shape) <= 3);
        });
    CHECK(shrunk == 4);
  }
}
