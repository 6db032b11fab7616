// The answers of a body search's move outcomes by the positions of their
// operands in the state (docs/search.md, "The space within the limits, and
// the cost of a state"). A state asks again for nearly every move its
// parent asked for (the values before its newest are its parent's); a
// look-up here stays in the core's caches where the search's outcome table,
// keyed by the operands' signatures and far larger, costs a cache miss.
//
// Each value a body search pushes gets a stamp never given before on its
// thread (64 bits: never wraps), so an entry is valid exactly while the
// operands at its positions are the values it was made for. One table per
// thread, shared by the thread's body searches: a nested search (the
// kernels after a closed one) overwrites entries with its own stamps, which
// only costs the outer search a miss. An entry holds the outcome table's
// answer (outcome index, legal, pruned), never anything that depends on the
// rest of the state.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "mirage/search/mix.h"
#include "space.h"

namespace mirage::search {

class MoveMemo {
 public:
  struct Answer {
    uint32_t index = 0;  // into the body search's outcomes
    bool legal = false;
    bool pruned = false;
  };
  // Binary operators (two value operands, no number, no dim): by kind and
  // both positions.
  struct Pair : Answer {
    uint64_t stamp0 = 0, stamp1 = 0;  // 0: never a value's stamp
  };
  // Operators of one value (unary kinds, a number, a reduction): by the
  // operand's position and the operator, which the entry holds whole (its
  // slot is a hash of it; a different operator there is a miss, never a
  // wrong answer).
  struct Unary : Answer {
    uint64_t stamp = 0;
    Rational scalar;
    int32_t dim = 0, reduceToInner = -1;
    ir::OpKind kind = ir::OpKind::Tile;
    bool hasScalar = false, scalarFirst = false;
    bool sameMove(const BodyOp& op) const {
      return kind == op.kind && dim == op.dim && reduceToInner == op.reduceToInner && hasScalar == op.hasScalar &&
             scalarFirst == op.scalarFirst && scalar.num == op.scalar.num && scalar.den == op.scalar.den;
    }
    void remember(uint64_t s, const BodyOp& op, const Answer& a) {
      static_cast<Answer&>(*this) = a;
      stamp = s;
      scalar = op.scalar;
      dim = op.dim;
      reduceToInner = op.reduceToInner;
      kind = op.kind;
      hasScalar = op.hasScalar;
      scalarFirst = op.scalarFirst;
    }
  };

  static MoveMemo& forThread() {
    thread_local MoveMemo memo;
    return memo;
  }
  uint64_t newStamp() { return ++lastStamp_; }

  // The entry for `op`, or null where it has none (a position past the
  // table, a ninth binary kind on this thread, an operator of another shape).
  Pair* pair(const BodyOp& op) {
    if (op.in1 < 0 || op.hasScalar || op.dim != 0 || op.reduceToInner != -1) return nullptr;
    const size_t i = static_cast<size_t>(op.in0), j = static_cast<size_t>(op.in1);
    if (i >= kPositions || j >= kPositions) return nullptr;
    int8_t& slot = slotOf_[static_cast<size_t>(op.kind)];
    if (slot < 0) {
      if (kindsSeen_ == static_cast<int8_t>(kKinds)) return nullptr;
      slot = kindsSeen_++;
    }
    return &pairs_[(static_cast<size_t>(slot) * kPositions + i) * kPositions + j];
  }
  Unary* unary(const BodyOp& op) {
    if (op.in1 >= 0 || op.in0 < 0 || static_cast<size_t>(op.in0) >= kPositions) return nullptr;
    const uint64_t h = mix(static_cast<uint64_t>(op.kind) * 1000003 + static_cast<uint64_t>(op.dim) * 7 +
                           static_cast<uint64_t>(op.reduceToInner + 1) * 131 +
                           static_cast<uint64_t>(op.scalarFirst) * 2 + (static_cast<uint64_t>(op.scalar.num) << 20) +
                           static_cast<uint64_t>(op.scalar.den) * 17);
    return &unaries_[static_cast<size_t>(op.in0) * kUnarySlots + (h % kUnarySlots)];
  }

 private:
  static constexpr size_t kPositions = 48;  // values of a body the memo covers
  static constexpr size_t kKinds = 8;       // binary kinds a thread's programs use, first come
  static constexpr size_t kUnarySlots = 64;
  std::vector<Pair> pairs_ = std::vector<Pair>(kKinds * kPositions * kPositions);
  std::vector<Unary> unaries_ = std::vector<Unary>(kPositions * kUnarySlots);
  std::array<int8_t, ir::kNumOpKinds> slotOf_ = [] {
    std::array<int8_t, ir::kNumOpKinds> a{};
    a.fill(-1);
    return a;
  }();
  int8_t kindsSeen_ = 0;
  uint64_t lastStamp_ = 0;
};

}  // namespace mirage::search
