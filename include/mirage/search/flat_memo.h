// A memo from 64-bit keys to small values in one open-addressed array: a
// look-up is one probe where a node-based map costs a cache miss more and
// an allocation per entry (the search asks such memos millions of times:
// ExprTable's subexpression and ratio tests, Context::pairTermKinds).
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/search/mix.h"

namespace mirage::search {

template <typename V>
class FlatMemo {
 public:
  // The value stored for `key`, or null.
  const V* find(uint64_t key) const {
    if (key + 1 == 0) return nullptr;  // never kept
    const Slot& s = slots_[slotOf(key + 1)];
    return s.key == key + 1 ? &s.value : nullptr;
  }
  void put(uint64_t key, V value) {
    if (key + 1 == 0) return;
    Slot& s = slots_[slotOf(key + 1)];
    if (s.key == 0) ++used_;
    s = {key + 1, value};
    if (2 * used_ > slots_.size()) grow();
  }
  void clear() {
    slots_.assign(kFirst, Slot{});
    used_ = 0;
  }

 private:
  static constexpr size_t kFirst = 1024;
  struct Slot {
    uint64_t key = 0;  // the key plus one; 0: empty (a key of 2^64 - 1 is never kept: only a miss)
    V value{};
  };
  size_t slotOf(uint64_t stored) const {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>(mix(stored)) & mask;
    while (slots_[i].key != 0 && slots_[i].key != stored) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.key != 0) slots_[slotOf(s.key)] = s;
  }
  std::vector<Slot> slots_ = std::vector<Slot>(kFirst);
  size_t used_ = 0;
};

}  // namespace mirage::search
