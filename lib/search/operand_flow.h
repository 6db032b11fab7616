// Where a contraction's operand must flow (docs/search.md, "Bounds", "The
// operand a contraction's partner needs").
//
// A program output Y = A · B (a matmul), with B a program input that A does
// not read, determines A as B varies: A[r, k] = ∂Y[r, n] / ∂B[k, n]. So in a
// plan whose kernels so far have not read B, the kernels after them compute
// Y from B and from what they read of the tensors in memory, and what they
// read must determine A. Where A is a function of one input X that varies
// with each element of X once a few statistics of X are fixed
// (A[i] = F(X[i], s) with ∂F/∂X[i] not identically zero, the statistics
// s being sums or means of functions of X), A has as many degrees of
// freedom as X has elements, less the statistics' values, and no fewer
// values can determine it: the kernels after must read that many values,
// each at least the size of an element of a tensor in memory. LayerNorm
// followed by a linear layer is such a program (two values per row), so
// are RMSNorm + Linear (one) and a plain X · W (none).
#pragma once

#include <vector>

#include "space.h"

namespace mirage::search {

// Every such (A, B) (OperandFlow, space.h) of the program's matmuls whose result is an output
// (either operand may be the input B). The analysis is conservative: an
// operator it cannot follow (a maximum, a layout move, a product of two
// values that both vary with X, ...) gives no flow.
std::vector<OperandFlow> findOperandFlows(const ir::Graph& program);

}  // namespace mirage::search
