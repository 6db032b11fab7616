// The program-level layout operators `reshape`, `concat` and `slice`
// (mg-language.md): they only move elements, so every component describes
// them by the same index bookkeeping, written once here. An output element
// comes from exactly one element of one operand; the copy is a list of
// contiguous runs (row-major on both sides), which is what the interpreter,
// the float64 reference, the verifier's lanes and the generated copy kernels
// all walk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::ir {

// Shape rules of the layout operators. `op.dim` is normalized in place;
// `op.shapeArg` is reshape's requested shape as written (one extent may be
// -1). `ins` are the operand shapes. Returns an empty string when legal.
std::string inferLayoutShape(Op& op, const std::vector<Shape>& ins, Shape& out);

// One contiguous piece of a layout operator's result: `length` elements
// starting at `dst` in the result come from operand `operand` starting at
// `src` (flat row-major offsets).
struct CopyRun {
  int operand = 0;
  int64_t src = 0;
  int64_t dst = 0;
  int64_t length = 0;
};

// The index bookkeeping of one layout op, given its operand and result
// shapes (attributes already normalized).
class LayoutMap {
 public:
  LayoutMap(const Op& op, const std::vector<Shape>& ins, const Shape& out);

  // Every result element exactly once, in increasing `dst` order.
  const std::vector<CopyRun>& runs() const { return runs_; }
  // The operand and operand offset of result element `flat`.
  CopyRun source(int64_t flat) const;
  // reshape: the result is the operand's buffer under another shape (a view).
  bool isView() const { return view_; }

 private:
  std::vector<CopyRun> runs_;
  bool view_ = false;
  // slice/concat: result viewed as [outer, mid, inner] along the dim.
  int64_t outer_ = 1, inner_ = 1, outMid_ = 1;
  std::vector<int64_t> midStart_;  // concat: first result index of each operand along the dim
  std::vector<int64_t> mid_;       // per operand, its extent along the dim
  int64_t sliceStart_ = 0, sliceInMid_ = 1;
  OpKind kind_ = OpKind::Input;
};

// Applies a layout op to row-major element arrays of any element type.
template <class T>
void applyLayout(const LayoutMap& m, const std::vector<const T*>& ins, T* out) {
  for (const CopyRun& r : m.runs()) {
    const T* from = ins[static_cast<size_t>(r.operand)] + r.src;
    for (int64_t i = 0; i < r.length; ++i) out[r.dst + i] = from[i];
  }
}

}  // namespace mirage::ir
