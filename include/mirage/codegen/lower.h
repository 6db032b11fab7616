// Lowering of a program to kernels only: every pre-defined operator at
// program level becomes a custom kernel whose body computes it (tiles of its
// operands, the operator on tiles, an accumulator over a for-loop where the
// operator reduces, a save), so that one code path emits every launch.
// The cost model (backend/cost_model.h) asks the same lowering for the
// launch shape of each pre-defined operator, so that what it predicts is
// what the generator emits.
#pragma once

#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::codegen {

// Rewrites `program` into `out`, where every op other than Input, Const and
// the layout operators is a Kernel (reshape, concat and slice stay: cuda.cpp
// makes a reshape a view of its operand's buffer and the others copy
// kernels). Custom kernels are kept as they are. Returns an empty string on
// success, else why an operator could not be lowered.
std::string lowerToKernels(const ir::Graph& program, ir::Graph& out);

// The launch the lowering makes of one pre-defined operator.
struct OperatorLaunch {
  // Grid and for-loop. `block` is left open (0): the kernel runs with the
  // emitter's default threads per block (codegen::Options::defaultThreads).
  ir::KernelConfig config;
  // Per operand that is a tensor (constants become body scalars), in operand
  // order: the tile one block loads per for-loop iteration.
  std::vector<ir::Shape> operandTiles;
  // What one block saves.
  ir::Shape outputTile;
};

// The launch of `op`, a pre-defined operator (not Input, Const or Kernel) of
// `program`, exactly as lowerToKernels makes it. Returns an empty string on
// success, else why the operator could not be lowered.
std::string lowerOperatorLaunch(const ir::Graph& program, const ir::Op& op, OperatorLaunch& launch);

// Layout operators (ir/layout.h) are not lowered to μGraph kernels: a
// reshape of a tensor stored in the program's dtype is a view of its
// operand's buffer (no launch), and so is a slice of a dense tensor that only
// kernels read (strided tile loads, ir::isLayoutView); concat and any other
// slice or reshape are copy kernels of this launch shape (one thread per
// result element, grid-stride).
bool isViewOp(const ir::Graph& g, const ir::Op& op);
struct CopyLaunch {
  int64_t blocks = 1;
  int threads = 128;
};
CopyLaunch copyKernelLaunch(const ir::Graph& g, const ir::Op& op);

}  // namespace mirage::codegen
