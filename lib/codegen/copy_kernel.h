// The copy kernels of `slice` and `concat` (and of a `reshape` that cannot
// be a view because its operand is stored in f32): one thread per result
// element, grid-stride, each element read from the operand that
// ir/layout.h's bookkeeping names. Reshape of a dense row-major tensor in
// the program's dtype is no launch at all: cuda.cpp aliases the buffer.
#pragma once

#include <string>
#include <vector>

#include "mirage/codegen/lower.h"
#include "mirage/ir/graph.h"

namespace mirage::codegen {

struct CopyKernelCode {
  std::string source;  // the __global__ function
  int64_t grid = 1;    // blocks (x)
  int threads = 128;
};

// `inTypes` are the storage dtypes of the operands; the result is stored in
// `outType`.
CopyKernelCode emitCopyKernel(const ir::Graph& g, const ir::Op& op, const std::string& fname,
                              const std::vector<ir::DType>& inTypes, ir::DType outType);

}  // namespace mirage::codegen
