// Demand-driven evaluation of single output elements, for the cheap
// pre-check: an output element is computed from only the elements it depends
// on (a row of a matmul, one block of a kernel, ...), memoized, with exactly
// the fingerprint rules of the whole-tensor evaluation (tensor_ops.cpp,
// kernel_eval.cpp), so the two always agree (test/verify/lazy_test.cpp checks
// this on the whole equiv suite).
#pragma once

#include <memory>

#include "mirage/ir/graph.h"
#include "mirage/verify/fingerprint.h"

namespace mirage::verify {

// One element with its lanes (see fingerprint.h).
struct Elem {
  u64 p = 0;
  u64 q = 0;
  u64 mx = 0;
  bool hasQ = false;
  bool isMax = false;
};

class LazyEvaluator {
 public:
  // `budget` bounds the number of element evaluations (memo hits excluded)
  // over the evaluator's life, and the memo holds at most 2^20 elements: an
  // output element whose cone is nearly the whole program is cheaper to get
  // from the whole-tensor evaluation.
  LazyEvaluator(const ir::Graph& g, const Trial& trial, int64_t budget = int64_t{1} << 62);
  ~LazyEvaluator();

  enum class Status { Ok, ZeroDivisor, OverBudget };
  // Element `flat` (row-major) of output o.
  Status output(size_t o, int64_t flat, Elem& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mirage::verify
