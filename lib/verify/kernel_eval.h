// Fingerprint evaluation of one custom kernel: every block of the grid runs
// the body with the exact tile / for-loop / accum / save semantics of the
// language (mg-language.md, "Custom kernels").
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/verify/fingerprint.h"
#include "mirage/verify/thread_pool.h"

namespace mirage::verify {

// Runs kernel op `kernel` of program `g` on its evaluated arguments; fills
// `results` (one per kernel result; those flagged in resultNeed get a
// residue lane where they can have one). Returns false on a zero divisor.
// `watchSlots` (may be null: nothing watched) gives, per body value, its slot
// in `watched` or -1; a watched value's value lane is written there for every
// block (and every iteration inside the loop), block-major.
//
// `fullProduct` (may be null) gives, for kernel arguments a and b, this
// trial's fingerprint of the program-level matmul(a, b) when one has been
// evaluated and kept (the reference's attention scores Q·K, typically), or
// null. A body matmul of a tile of a by a tile of b that contracts over the
// whole reduction dim is a slice of that product -- exactly, the same field
// elements -- and is copied from it instead of being multiplied again.
//
// `onlyBlocks` (may be null: every block) lists the blocks to run, by
// linear index x + gx·(y + gy·z); the results' elements no listed block
// writes stay zero. The pre-check uses it to compute a few output elements
// of a kernel from their own blocks alone.
using FullProductLookup = std::function<FTensorPtr(size_t a, size_t b)>;

bool evaluateKernel(const ir::Graph& g, const ir::Op& kernel, const std::vector<FTensorPtr>& args,
                    const std::vector<char>& resultNeed, const Trial& trial, ThreadPool* pool,
                    std::vector<std::shared_ptr<FTensor>>& results,
                    const std::vector<int>* watchSlots = nullptr,
                    std::vector<std::vector<u64>>* watched = nullptr,
                    const FullProductLookup* fullProduct = nullptr,
                    const std::vector<int64_t>* onlyBlocks = nullptr);

// A block's linear index, x + gx·(y + gy·z) (the order of `onlyBlocks`),
// and back.
int64_t linearBlock(const std::array<int64_t, 3>& grid, const int64_t* at);
std::array<int64_t, 3> blockCoords(const std::array<int64_t, 3>& grid, int64_t linear);

// The block of a kernel with `grid` whose `save` writes element `idx` of
// the result it saves from a value of shape `chunk`: chunk idx[d] / chunk[d]
// along each grid dim of more than one block, which the save maps to a dim d
// (ir/check.cpp requires it); 0 along the others.
std::array<int64_t, 3> blockWriting(const ir::Op& save, const ir::Shape& chunk, const std::array<int64_t, 3>& grid,
                                    const int64_t* idx);

// Blocks share the body values that do not depend on all of their
// coordinates, and iterations those that do not change between them
// (kernel_eval.cpp, docs/verifier.md "Values blocks share"); on by default.
// Tests turn it off to compare the two evaluations element by element.
void setBlockValueSharing(bool on);

}  // namespace mirage::verify
