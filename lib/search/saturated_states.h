// States whose whole subtree a pass explored without deferring a move to a
// later pass (docs/search.md, "Saturated states"), shared by the threads of
// one search. A pass with more discrepancies that reaches such a state
// again, with no more operators left, would visit the same states (no test
// it meets reads the discrepancies left) under a best at least as good,
// and emit a subset of the same plans: it skips the subtree. This is the
// saturated-pass rule of search.cpp (a pass that refused nothing is the
// whole space of its configuration) applied to each state, so that a pass
// walks again only the paths to the moves the pass before it refused.
//
// Keys are 64-bit hashes of the whole plan state (the closed kernels, the
// kernel's configuration, its body's operators in order), as the
// seen-set's are of a body's values. Only subtrees that emitted no
// template count, and only the largest are kept (the saturated children
// of a state that is not); the table is emptied when it grows past a
// bound: forgetting an entry only costs a walk.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mirage::search {

class SaturatedStates {
 public:
  // The state's subtree was explored whole with at least `opsLeft`
  // operators left.
  bool covers(uint64_t state, int opsLeft) const {
    std::lock_guard lock(mu_);
    auto it = opsLeft_.find(state);
    return it != opsLeft_.end() && it->second >= opsLeft;
  }

  void record(uint64_t state, int opsLeft) {
    std::lock_guard lock(mu_);
    if (opsLeft_.size() >= kMostEntries) opsLeft_.clear();  // bounded memory
    auto [it, inserted] = opsLeft_.emplace(state, opsLeft);
    if (!inserted && it->second < opsLeft) it->second = opsLeft;
  }

 private:
  static constexpr size_t kMostEntries = size_t{1} << 21;  // about 64 MB
  mutable std::mutex mu_;
  std::unordered_map<uint64_t, int> opsLeft_;
};

}  // namespace mirage::search
