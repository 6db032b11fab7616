// Which values need their residue lane (mod Q): only an `exp` reads it, so a
// value needs it when an exp consumes it directly or through sums, products,
// quotients, reductions, transposes, tiles and saves. Everything else skips
// the Q arithmetic, which halves the work of programs without exp. Skipping
// never changes a result: a residue lane is computed exactly where some exp
// can see it.
#pragma once

#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::verify {

// need[v] for every value of g. For a kernel body, `resultNeed` says which of
// the kernel's results need their residue lane; for a program it is empty
// (outputs are compared by value only).
std::vector<char> residueDemand(const ir::Graph& g, const std::vector<char>& resultNeed = {});

}  // namespace mirage::verify
