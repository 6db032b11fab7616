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
// of a state that is not); a shard is emptied when it grows past its
// bound: forgetting an entry only costs a walk.
//
// Every state a walk enters is looked up here, so the table is split into
// shards by the key's top bits, each with its own lock: with one lock, the
// threads' waits on it (futex calls and the context switches after them)
// were 6% of a two-thread QKNorm+GQA run's CPU.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace mirage::search {

class SaturatedStates {
 public:
  // The state's subtree was explored whole with at least `opsLeft`
  // operators left.
  bool covers(uint64_t state, int opsLeft) const {
    const Shard& shard = shardOf(state);
    std::lock_guard lock(shard.mu);
    auto it = shard.opsLeft.find(state);
    return it != shard.opsLeft.end() && it->second >= opsLeft;
  }

  void record(uint64_t state, int opsLeft) {
    Shard& shard = shardOf(state);
    std::lock_guard lock(shard.mu);
    if (shard.opsLeft.size() >= kMostEntries / kShards) shard.opsLeft.clear();  // bounded memory
    auto [it, inserted] = shard.opsLeft.emplace(state, opsLeft);
    if (!inserted && it->second < opsLeft) it->second = opsLeft;
  }

 private:
  static constexpr size_t kMostEntries = size_t{1} << 21;  // about 64 MB in all
  static constexpr int kShardBits = 6;
  static constexpr size_t kShards = size_t{1} << kShardBits;
  // Its own cache line each, so that two threads' locks do not share one.
  struct alignas(64) Shard {
    mutable std::mutex mu;
    std::unordered_map<uint64_t, int> opsLeft;
  };
  // The keys are mixed hashes: their top bits spread states evenly.
  Shard& shardOf(uint64_t state) { return shards_[state >> (64 - kShardBits)]; }
  const Shard& shardOf(uint64_t state) const { return shards_[state >> (64 - kShardBits)]; }
  std::array<Shard, kShards> shards_;
};

}  // namespace mirage::search
