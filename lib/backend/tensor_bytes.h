// Interpreter tensors (f32 values) to and from the bytes a GPU buffer holds
// in a program dtype (IEEE binary16, bfloat16 or binary32, round to nearest
// even). Shared by the GPU check and mirage-run --device cuda.
#pragma once

#include <cstdint>
#include <vector>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::backend {

std::vector<uint8_t> tensorToBytes(const interp::Tensor& t, ir::DType dtype);
float elementAt(const std::vector<uint8_t>& bytes, int64_t i, ir::DType dtype);
interp::Tensor bytesToTensor(const std::vector<uint8_t>& bytes, const ir::Shape& shape, ir::DType dtype);

}  // namespace mirage::backend
