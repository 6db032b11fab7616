// The pre-defined operators on host tensors in f32 (ops.h): the element-type
// generic definitions of dense_ops.h, instantiated for Tensor.
#include "ops.h"

#include <string>

#include "dense_ops.h"

namespace mirage::interp {

std::vector<int64_t> dense::broadcastStrides(const ir::Shape& s, const ir::Shape& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  size_t lead = out.size() - s.size();
  for (size_t i = s.size(); i-- > 0;) {
    strides[lead + i] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return strides;
}

namespace detail {

using ir::OpKind;

Tensor unaryOp(OpKind kind, const Tensor& a) { return dense::unary(kind, a); }
Tensor binaryOp(OpKind kind, const Tensor& a, const Tensor& b) { return dense::binary(kind, a, b); }
Tensor matmul(const Tensor& a, const Tensor& b) { return dense::matmul(a, b); }
Tensor reduce(OpKind kind, const Tensor& a, int dim, int64_t size) { return dense::reduce(kind, a, dim, size); }
Tensor transpose(const Tensor& a, int dim0, int dim1) { return dense::transpose(a, dim0, dim1); }
Tensor layout(const ir::Op& op, const Tensor* const* x) { return dense::layout(op, x); }

Tensor applyOp(const ir::Op& op, const Tensor* const* x) {
  switch (op.kind) {
    MIRAGE_CASES_UNARY return unaryOp(op.kind, *x[0]);
    MIRAGE_CASES_BINARY return binaryOp(op.kind, *x[0], *x[1]);
    MIRAGE_CASES_REDUCTION return reduce(op.kind, *x[0], op.dim, op.size);
    case OpKind::Matmul: return matmul(*x[0], *x[1]);
    case OpKind::Transpose: return transpose(*x[0], op.dim, op.dim1);
    MIRAGE_CASES_PROGRAM_LAYOUT return layout(op, x);
    MIRAGE_CASES_LEAF
    MIRAGE_CASES_PROGRAM
    MIRAGE_CASES_BODY
    MIRAGE_CASES_SHORTHAND break;
  }
  dense::internalError(std::string("'") + std::string(ir::opName(op.kind)) + "' is not a pre-defined operator");
}

}  // namespace detail
}  // namespace mirage::interp
