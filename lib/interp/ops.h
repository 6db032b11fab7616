// The pre-defined operators on host tensors, in f32, unrounded: the same code
// serves program-level operators (whose results the interpreter then rounds to
// the program dtype) and operators on tiles inside kernel bodies. Attributes
// (dims) are already normalized by the IR builders.
#pragma once

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::interp::detail {

// The element-wise unary operators (dense_ops.h has the definitions).
Tensor unaryOp(ir::OpKind kind, const Tensor& a);
// add sub mul div with NumPy broadcasting (a rank-0 tensor is a scalar).
Tensor binaryOp(ir::OpKind kind, const Tensor& a, const Tensor& b);
// A[..., m, k] · B[..., k, n], batch dims broadcast; sums in f32.
Tensor matmul(const Tensor& a, const Tensor& b);
// reduce_sum / reduce_mean / reduce_max over `dim` down to extent `size`
// (size > 1 only for reduce_sum: out[..c..] = sum_j A[..c + size*j..]).
Tensor reduce(ir::OpKind kind, const Tensor& a, int dim, int64_t size);
Tensor transpose(const Tensor& a, int dim0, int dim1);
// reshape, concat, slice: `op.inputs.size()` operands; elements are moved,
// never changed (ir/layout.h).
Tensor layout(const ir::Op& op, const Tensor* const* operands);

// Dispatches a pre-defined operator (not input, const, kernel, tile, accum,
// save) on its operands.
Tensor applyOp(const ir::Op& op, const Tensor* const* operands);

}  // namespace mirage::interp::detail
