// The shrinker of mirage-fuzz: delta debugging over a failing program's
// statements, operands and extents. Each step proposes smaller programs
// (an output dropped, an operation bypassed by one of its operands, a value
// cut into a fresh input, an extent halved or set to 1 everywhere it
// occurs), rebuilds them through the checked builders, and keeps the
// smallest that still fails with the same label. Ends at a program where no
// proposal still fails, or when the test budget is spent.
#pragma once

#include <functional>

#include "mirage/fuzz/oracle.h"
#include "mirage/ir/graph.h"

namespace mirage::fuzz {

// Runs the chain (or any check) on a program and says how it fails.
using FailureTest = std::function<Failure(const ir::Graph&)>;

struct ShrinkStats {
  int tests = 0;      // calls of the test
  int steps = 0;      // proposals accepted
  int statementsBefore = 0, statementsAfter = 0;
};

ir::Graph shrink(const ir::Graph& program, Failure label, const FailureTest& test, int maxTests,
                 ShrinkStats* stats = nullptr);

}  // namespace mirage::fuzz
