// The seen-set of a body search (docs/search.md, "Canonical order and the
// seen-set"): which states (a hash of the set of a body's values) were
// explored, and with what budget of operators and discrepancies left, so
// that a state reached again by another order of the same operators is
// explored again only when it now has more of either.
//
// A visit is skipped only when one budget it was explored with covers the
// new one in both counts. Budgets are not merged: a state explored with
// (5 operators, 0 discrepancies) and with (3, 1) was never explored with
// (4, 1), and a merged (5, 1), as the seen-set kept before, would skip that
// visit and lose every body only it reaches. An entry keeps two budgets
// (where a third comes that neither covers, the older goes: forgetting a
// budget only costs a repeated visit). One open-addressed array, not a
// node per state: a search visits millions.
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/search/mix.h"

namespace mirage::search {

class SeenStates {
 public:
  // Records that `state` is explored with this budget; false when an
  // earlier exploration covers it (then nothing is recorded).
  bool visit(uint64_t state, int opsLeft, int discLeft) {
    // The first slots come with the first visit: most body searches are
    // refused before they visit a state (body_search.cpp, prepare).
    if (entries_.empty()) entries_.assign(kFirstSlots, Entry{});
    Entry& e = slot(state);
    const auto ops = static_cast<int16_t>(opsLeft), disc = static_cast<int16_t>(discLeft);
    if (e.ops[0] == kNone) {
      e.state = state;
      e.ops[0] = ops;
      e.disc[0] = disc;
      if (2 * ++count_ > entries_.size()) grow();
      return true;
    }
    for (int k = 0; k < 2; ++k)
      if (e.ops[k] != kNone && e.ops[k] >= ops && e.disc[k] >= disc) return false;
    // Keep the budgets the new one does not cover, at most one besides it.
    const bool keep0 = !(e.ops[0] <= ops && e.disc[0] <= disc);
    const bool keep1 = e.ops[1] != kNone && !(e.ops[1] <= ops && e.disc[1] <= disc);
    if (keep1) {  // the newer of the two kept budgets moves down
      e.ops[0] = e.ops[1];
      e.disc[0] = e.disc[1];
    } else if (!keep0) {
      e.ops[0] = ops;
      e.disc[0] = disc;
      e.ops[1] = kNone;
      return true;
    }
    e.ops[1] = ops;
    e.disc[1] = disc;
    return true;
  }

 private:
  static constexpr int16_t kNone = INT16_MIN;
  struct Entry {
    uint64_t state = 0;
    int16_t ops[2] = {kNone, kNone};  // ops[0] == kNone: an empty slot
    int16_t disc[2] = {0, 0};
  };
  static constexpr size_t kFirstSlots = 1024;  // a power of two (slot)
  std::vector<Entry> entries_;
  size_t count_ = 0;

  Entry& slot(uint64_t state) {
    const size_t mask = entries_.size() - 1;
    size_t i = static_cast<size_t>(mix(state)) & mask;
    while (entries_[i].ops[0] != kNone && entries_[i].state != state) i = (i + 1) & mask;
    return entries_[i];
  }
  void grow() {
    std::vector<Entry> old(entries_.size() * 2);
    old.swap(entries_);
    for (const Entry& e : old)
      if (e.ops[0] != kNone) slot(e.state) = e;
  }
};

}  // namespace mirage::search
