// The shrinker: with a synthetic failure (a program "fails" when it has a
// transpose, or an exp) it must end at a program of one or two statements
// that still fails, and it must never return a program that passes.
#include <catch2/catch.hpp>

#include "mirage/fuzz/generate.h"
#include "mirage/fuzz/shrink.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "synthetic_failure.h"

using namespace mirage;

using test::hasOp;

TEST_CASE("a synthetic failure shrinks to the one statement that causes it") {
  for (ir::OpKind culprit : {ir::OpKind::Transpose, ir::OpKind::Exp, ir::OpKind::Matmul}) {
    int shrunk = test::shrinkSyntheticFailures(
        culprit, 3, 200, 5, 500, [&](const ir::Graph& g, const ir::Graph& small, const fuzz::ShrinkStats& st) {
          INFO(ir::printGraph(g) << "shrunk to\n" << ir::printGraph(small));
          CHECK(hasOp(small, culprit));
          CHECK(fuzz::countStatements(small) == 1);
          CHECK(st.statementsBefore == fuzz::countStatements(g));
          CHECK(st.statementsAfter == 1);
          // Extents shrink too: every input extent ends at 1 (nothing in the
          // failure depends on them).
          for (ir::ValueId in : small.inputs)
            for (int64_t e : small.value(in).shape) CHECK(e == 1);
        });
    CHECK(shrunk == 5);
  }
}

TEST_CASE("the shrinker keeps the original when nothing smaller fails, and respects its budget") {
  ir::Graph g = fuzz::generateProgram(fuzz::caseSeed(3, 1));
  std::string before = ir::printGraph(g);
  int calls = 0;
  auto never = [&](const ir::Graph&) {
    ++calls;
    return fuzz::Failure::None;
  };
  fuzz::ShrinkStats st;
  ir::Graph same = fuzz::shrink(g, fuzz::Failure::Crash, never, 7, &st);
  CHECK(ir::printGraph(same) == before);
  CHECK(calls <= 7);
  CHECK(st.tests == calls);
}
