// Fingerprint evaluation of one custom kernel: every block of the grid runs
// the body with the exact tile / for-loop / accum / save semantics of the
// language (mg-language.md, "Custom kernels").
#pragma once

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
bool evaluateKernel(const ir::Graph& g, const ir::Op& kernel, const std::vector<FTensorPtr>& args,
                    const std::vector<char>& resultNeed, const Trial& trial, ThreadPool* pool,
                    std::vector<std::shared_ptr<FTensor>>& results,
                    const std::vector<int>* watchSlots = nullptr,
                    std::vector<std::vector<u64>>* watched = nullptr);

}  // namespace mirage::verify
