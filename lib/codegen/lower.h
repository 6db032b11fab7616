// Lowering of a program to kernels only: every pre-defined operator at
// program level becomes a custom kernel whose body computes it (tiles of its
// operands, the operator on tiles, an accumulator over a for-loop where the
// operator reduces, a save), so that one code path emits every launch.
#pragma once

#include <string>

#include "mirage/ir/graph.h"

namespace mirage::codegen {

// Rewrites `program` into `out`, where every op other than Input and Const is
// a Kernel. Custom kernels are kept as they are. Returns an empty string on
// success, else why an operator could not be lowered.
std::string lowerToKernels(const ir::Graph& program, ir::Graph& out);

}  // namespace mirage::codegen
