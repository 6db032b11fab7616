// Shape rules and index bookkeeping of reshape, concat and slice (see
// mirage/ir/layout.h).
#include "mirage/ir/layout.h"

#include <fmt/format.h>

#include <algorithm>

#include "mirage/ir/check.h"

namespace mirage::ir {

namespace {

std::string inferReshape(const Op& op, const Shape& in, Shape& out) {
  const Shape& want = op.shapeArg;
  if (want.empty() || static_cast<int>(want.size()) > kMaxRank)
    return fmt::format("reshape's shape has 1 to {} extents, got {}", kMaxRank, want.size());
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == -1) {
      if (inferred >= 0)
        return fmt::format("reshape's shape {} has more than one -1 (extents {} and {}); at most one extent "
                           "can be inferred",
                           shapeToString(want), inferred, i);
      inferred = static_cast<int>(i);
      continue;
    }
    if (want[i] <= 0 || want[i] > kMaxExtent)
      return fmt::format("reshape's extent {} is not a positive integer below 2^31 (or -1)", want[i]);
    if (known > kMaxElements / want[i])
      return fmt::format("reshape's shape {} holds more than 2^40 elements", shapeToString(want));
    known *= want[i];
  }
  int64_t n = numElements(in);
  out = want;
  if (inferred >= 0) {
    if (n % known != 0)
      return fmt::format("reshape of {} ({} elements) to {}: {} is not a multiple of {}, so the -1 cannot be "
                         "inferred",
                         shapeToString(in), n, shapeToString(want), n, known);
    out[static_cast<size_t>(inferred)] = n / known;
  } else if (known != n) {
    return fmt::format("reshape of {} ({} elements) to {} ({} elements) changes the number of elements",
                       shapeToString(in), n, shapeToString(want), known);
  }
  return {};
}

std::string inferConcat(Op& op, const std::vector<Shape>& ins, Shape& out) {
  if (ins.size() < 2) return fmt::format("'concat' joins two or more tensors, got {}", ins.size());
  int rank = static_cast<int>(ins[0].size());
  int d = normalizeDim(op.dim, rank);
  if (d < 0) return fmt::format("dim {} is out of range for a tensor of rank {}", op.dim, rank);
  op.dim = d;
  out = ins[0];
  for (size_t k = 1; k < ins.size(); ++k) {
    const Shape& s = ins[k];
    if (static_cast<int>(s.size()) != rank)
      return fmt::format("concat operands {} and {} have different ranks", shapeToString(ins[0]),
                         shapeToString(s));
    for (int i = 0; i < rank; ++i)
      if (i != d && s[static_cast<size_t>(i)] != ins[0][static_cast<size_t>(i)])
        return fmt::format("concat operands {} and {} differ in dim {} ({} vs {}); only the concat dim {} may "
                           "differ",
                           shapeToString(ins[0]), shapeToString(s), i, ins[0][static_cast<size_t>(i)],
                           s[static_cast<size_t>(i)], d);
    out[static_cast<size_t>(d)] += s[static_cast<size_t>(d)];
  }
  if (out[static_cast<size_t>(d)] > kMaxExtent)
    return fmt::format("concat's result extent {} along dim {} is not below 2^31", out[static_cast<size_t>(d)], d);
  return {};
}

std::string inferSlice(Op& op, const Shape& in, Shape& out) {
  int rank = static_cast<int>(in.size());
  int d = normalizeDim(op.dim, rank);
  if (d < 0) return fmt::format("dim {} is out of range for a tensor of rank {}", op.dim, rank);
  op.dim = d;
  int64_t n = in[static_cast<size_t>(d)];
  if (op.start < 0 || op.start >= op.end || op.end > n)
    return fmt::format("slice [{}, {}) of dim {} (extent {}) is out of range: it needs 0 <= start < end <= {}",
                       op.start, op.end, d, n, n);
  out = in;
  out[static_cast<size_t>(d)] = op.end - op.start;
  return {};
}

}  // namespace

std::string inferLayoutShape(Op& op, const std::vector<Shape>& ins, Shape& out) {
  switch (op.kind) {
    case OpKind::Reshape:
      if (ins.size() != 1) return fmt::format("'reshape' takes 1 operand, got {}", ins.size());
      return inferReshape(op, ins[0], out);
    case OpKind::Concat: return inferConcat(op, ins, out);
    case OpKind::Slice:
      if (ins.size() != 1) return fmt::format("'slice' takes 1 operand, got {}", ins.size());
      return inferSlice(op, ins[0], out);
    default: return fmt::format("internal: '{}' is not a layout operator", opName(op.kind));
  }
}

LayoutMap::LayoutMap(const Op& op, const std::vector<Shape>& ins, const Shape& out) : kind_(op.kind) {
  if (op.kind == OpKind::Reshape) {
    view_ = true;
    runs_.push_back({0, 0, 0, numElements(out)});
    return;
  }
  size_t d = static_cast<size_t>(op.dim);
  for (size_t i = 0; i < d; ++i) outer_ *= out[i];
  for (size_t i = d + 1; i < out.size(); ++i) inner_ *= out[i];
  outMid_ = out[d];
  if (op.kind == OpKind::Slice) {
    sliceStart_ = op.start;
    sliceInMid_ = ins[0][d];
    int64_t inMid = sliceInMid_, len = outMid_ * inner_;
    for (int64_t o = 0; o < outer_; ++o) runs_.push_back({0, (o * inMid + op.start) * inner_, o * len, len});
    return;
  }
  int64_t at = 0;
  for (const Shape& s : ins) {
    midStart_.push_back(at);
    mid_.push_back(s[d]);
    at += s[d];
  }
  for (int64_t o = 0; o < outer_; ++o)
    for (size_t k = 0; k < ins.size(); ++k) {
      int64_t len = mid_[k] * inner_;
      runs_.push_back({static_cast<int>(k), o * len, (o * outMid_ + midStart_[k]) * inner_, len});
    }
}

CopyRun LayoutMap::source(int64_t flat) const {
  if (view_) return {0, flat, flat, 1};
  int64_t o = flat / (outMid_ * inner_), rest = flat % (outMid_ * inner_);
  int64_t m = rest / inner_, i = rest % inner_;
  if (kind_ == OpKind::Slice) return {0, (o * sliceInMid_ + sliceStart_ + m) * inner_ + i, flat, 1};
  size_t k = static_cast<size_t>(std::upper_bound(midStart_.begin(), midStart_.end(), m) - midStart_.begin()) - 1;
  return {static_cast<int>(k), (o * mid_[k] + (m - midStart_[k])) * inner_ + i, flat, 1};
}

}  // namespace mirage::ir
