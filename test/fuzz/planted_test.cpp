// The fuzzer's chain on a planted bug (CaseOptions::plantBug), through the
// real components and the forked sandbox: a generated program whose written
// .cu computes exp wrongly is labeled interp-shim-mismatch, and the
// shrinker reduces it to a handful of statements that still fail the same
// way. mirage-opt runs with --no-search here (the input lowered one kernel
// per operator), so each chain run costs one host compile of the .cu.
#include <catch2/catch.hpp>

#include "mirage/fuzz/generate.h"
#include "mirage/fuzz/oracle.h"
#include "mirage/fuzz/sandbox.h"
#include "mirage/fuzz/shrink.h"
#include "mirage/ir/printer.h"

using namespace mirage;

TEST_CASE("a planted codegen bug is found and shrunk to a handful of statements", "[slow]") {
  // The first generated program with an exp and at least 8 statements.
  ir::Graph g;
  uint64_t seed = 0;
  for (;; ++seed) {
    g = fuzz::generateProgram(fuzz::caseSeed(5, seed));
    bool hasExp = false;
    for (const ir::Op& op : g.ops) hasExp = hasExp || op.kind == ir::OpKind::Exp;
    if (hasExp && fuzz::countStatements(g) >= 8) break;
  }
  INFO(ir::printGraph(g));
  fuzz::CaseOptions opt;
  opt.seed = seed;
  opt.noSearch = true;
  auto label = [&](const ir::Graph& p, const fuzz::CaseOptions& o) {
    return fuzz::runIsolated([&] { return fuzz::runCase(p, o); }, 120).failure;
  };
  REQUIRE(label(g, opt) == fuzz::Failure::None);  // no bug planted: the chain passes
  opt.plantBug = "codegen-exp";
  REQUIRE(label(g, opt) == fuzz::Failure::InterpShimMismatch);

  fuzz::ShrinkStats st;
  ir::Graph small = fuzz::shrink(g, fuzz::Failure::InterpShimMismatch,
                                 [&](const ir::Graph& p) { return label(p, opt); }, 40, &st);
  INFO("shrunk to\n" << ir::printGraph(small));
  CHECK(st.statementsBefore >= 8);
  CHECK(fuzz::countStatements(small) <= 5);
  CHECK(label(small, opt) == fuzz::Failure::InterpShimMismatch);
}

TEST_CASE("a crash and a hang in a case are caught and labeled") {
  fuzz::CaseResult crash = fuzz::runIsolated(
      []() -> fuzz::CaseResult {
        volatile int* p = nullptr;
        *p = 1;
        return {};
      },
      30);
  CHECK(crash.failure == fuzz::Failure::Crash);
  CHECK(crash.detail.find("signal") != std::string::npos);
  fuzz::CaseResult hang = fuzz::runIsolated(
      []() -> fuzz::CaseResult {
        for (;;) {
        }
      },
      1);
  CHECK(hang.failure == fuzz::Failure::Hang);
  fuzz::CaseResult thrown = fuzz::runIsolated([]() -> fuzz::CaseResult { throw std::runtime_error("boom"); }, 30);
  CHECK(thrown.failure == fuzz::Failure::Crash);
  CHECK(thrown.detail.find("boom") != std::string::npos);
  fuzz::CaseResult ok = fuzz::runIsolated(
      [] {
        fuzz::CaseResult r;
        r.failure = fuzz::Failure::NumericallyWorse;
        r.detail = "two\nlines";
        return r;
      },
      30);
  CHECK(ok.failure == fuzz::Failure::NumericallyWorse);
  CHECK(ok.detail == "two\nlines");
}
