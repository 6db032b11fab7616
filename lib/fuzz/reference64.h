// A minimal float64 evaluator of programs of pre-defined operators (no
// custom kernels): the "exact" answer the fuzzer measures every stage
// against. The numerics branch adds the same to lib/interp
// (interp::evaluate64 in interp/reference64.h); once that is on main this
// file should go and the oracle call that one.
#pragma once

#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::fuzz {

struct Tensor64 {
  ir::Shape shape;
  std::vector<double> data;
};

// Outputs of g in float64 on `inputs` (one per g.inputs, taken exactly as
// given). Throws std::logic_error on a custom kernel or a shape mismatch.
std::vector<Tensor64> evaluate64(const ir::Graph& g, const std::vector<interp::Tensor>& inputs);

}  // namespace mirage::fuzz
