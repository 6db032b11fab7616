// A float64 evaluation of programs of pre-defined operators: the "exact"
// reference that mirage-opt's numerics check (docs/numerics-check.md)
// measures the input program and each candidate against. Every operator is
// computed in double and nothing is rounded to the program dtype, so the
// difference between `evaluate` (interpreter.h, at the program's dtype) and
// this is the rounding error of the program as the contract defines it.
//
// Only program-level graphs without custom kernels are accepted: the input
// program of mirage-opt never has kernels, and the candidates are compared
// with the input's reference, never with one of their own.
#pragma once

#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::interp {

// A row-major tensor of doubles (shape as in Tensor).
struct Tensor64 {
  ir::Shape shape;
  std::vector<double> data;

  Tensor64() = default;
  explicit Tensor64(ir::Shape s, double fill = 0.0)
      : shape(std::move(s)), data(static_cast<size_t>(ir::numElements(shape)), fill) {}
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

// Evaluates `g` in float64 on `inputs` (one per g.inputs, in order, each
// with the input's shape), taken exactly as given: they are not rounded to
// g.dtype, so pass the same dtype-exact tensors `evaluate` gets to compare
// the two. Throws EvalError (interpreter.h) for a wrong input count or shape
// and for a graph with a custom kernel.
std::vector<Tensor64> evaluate64(const ir::Graph& g, const std::vector<Tensor>& inputs);

}  // namespace mirage::interp
