// The tie key of a plan (docs/search.md, "Ties"): a sequence of integers
// that orders plans of equal predicted time and launches, so that which of
// them wins does not depend on which a thread verified first, and that a
// partial plan can be compared with before it is complete. A plan's key is
// the number of its operators whose values are none of the program's own
// terms (BodyOp::offProgram; fewer wins: of two plans predicted equal, the
// one that computes what the program computes, rounding where it rounds),
// then the number of its body operators (tiles included; fewer wins: the
// one with less work), then its kernels in order, each its grid and loop,
// its body operators in the order the search appended them and its saves.
// The search only ever appends to a plan, so every completion of a partial
// plan has at least its off-program operators, at least its operators plus
// those it must still build (BodySearch::operatorsStillNeeded), and the
// rest of its key starts with the partial plan's: a partial plan whose
// counts already exceed a verified candidate's, or equal them while the
// rest differs from the candidate's at a larger element, loses every tie
// to it.
// (Measured on small programs: ordering kernels by the search's
// configuration number instead of grid and loop, or operators by operand
// before kind, left more of the space to explore.)
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/search/mix.h"
#include "space.h"

namespace mirage::search {

// Writes keys (KeyVector) or compares them with a given key while they are
// written (KeyCompare), without building them.
struct KeyVector {
  std::vector<int64_t> key;
  void put(int64_t x) { key.push_back(x); }
};

// A 64-bit hash of what is put, from `h` (a plan state's key:
// BodySearch::stateKey).
struct KeyHash {
  uint64_t h = 0;
  void put(int64_t x) { h = mix(h ^ static_cast<uint64_t>(x)); }
};

struct KeyCompare {
  const std::vector<int64_t>& other;
  size_t pos = 0;
  int order = 0;  // -1: smaller than other, 1: larger, 0: equal so far
  void put(int64_t x) {
    if (order != 0) return;
    if (pos >= other.size()) {
      order = 1;  // other is a proper prefix
      return;
    }
    if (x != other[pos]) order = x < other[pos] ? -1 : 1;
    ++pos;
  }
};

template <class Sink>
void putKernelHeader(Sink& s, const std::vector<GridAxis>& grid, Label loop) {
  s.put(0);
  s.put(static_cast<int64_t>(loop));
  s.put(static_cast<int64_t>(grid.size()));
  for (const GridAxis& a : grid) s.put(static_cast<int64_t>(a.label) * 2 + (a.split ? 1 : 0));
}

// `tensor`: the plan tensor a tile reads (templates number their tiles by
// kernel argument, the search by tensor).
template <class Sink>
void putOp(Sink& s, const BodyOp& op, int tensor) {
  s.put(1);
  s.put(static_cast<int64_t>(op.kind));
  s.put(op.in0);
  s.put(op.in1);
  s.put(op.dim);
  s.put(op.dim1);
  s.put(op.reduceToInner);
  s.put((op.hasScalar ? 1 : 0) + (op.scalarFirst ? 2 : 0) + (op.accumMax ? 4 : 0));
  s.put(op.scalar.num);
  s.put(op.scalar.den);
  s.put(op.logical0);
  s.put(tensor);
}

template <class Sink>
void putKernel(Sink& s, const KernelTemplate& k) {
  putKernelHeader(s, k.grid, k.loop);
  for (const BodyOp& op : k.ops)
    putOp(s, op, op.kind == ir::OpKind::Tile ? k.args[static_cast<size_t>(op.arg)] : -1);
  s.put(2);
  s.put(static_cast<int64_t>(k.saved.size()));
  for (size_t i = 0; i < k.saved.size(); ++i) {
    s.put(k.saved[i]);
    for (int d : k.savedOmap[i]) s.put(d);
    s.put(i < k.savedF32.size() && k.savedF32[i] ? 1 : 0);
  }
}

// The key's leading counts: off-program operators, then all operators.
struct OpCounts {
  int64_t offProgram = 0;
  int64_t ops = 0;
  void add(const std::vector<BodyOp>& body) {
    for (const BodyOp& op : body) offProgram += op.offProgram ? 1 : 0;
    ops += static_cast<int64_t>(body.size());
  }
  void addKernels(const std::vector<KernelTemplate>& kernels) {
    for (const KernelTemplate& k : kernels) add(k.ops);
  }
  template <class Sink>
  void put(Sink& s) const {
    s.put(offProgram);
    s.put(ops);
  }
};

inline std::vector<int64_t> tieKey(const Plan& plan) {
  KeyVector v;
  OpCounts counts;
  counts.addKernels(plan.kernels);
  counts.put(v);
  for (const KernelTemplate& k : plan.kernels) putKernel(v, k);
  return std::move(v.key);
}

}  // namespace mirage::search
