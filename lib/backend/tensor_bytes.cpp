// See tensor_bytes.h.
#include "tensor_bytes.h"

#include <cstring>

#include "mirage/interp/rounding.h"

namespace mirage::backend {

std::vector<uint8_t> tensorToBytes(const interp::Tensor& t, ir::DType dtype) {
  std::vector<uint8_t> bytes(static_cast<size_t>(t.size() * ir::dtypeBytes(dtype)));
  for (int64_t i = 0; i < t.size(); ++i) {
    const float v = t.data[static_cast<size_t>(i)];
    uint8_t* at = &bytes[static_cast<size_t>(i * ir::dtypeBytes(dtype))];
    if (dtype == ir::DType::F32) {
      std::memcpy(at, &v, 4);
    } else {
      const uint16_t h = dtype == ir::DType::F16 ? interp::floatToHalfBits(v) : interp::floatToBf16Bits(v);
      std::memcpy(at, &h, 2);
    }
  }
  return bytes;
}

float elementAt(const std::vector<uint8_t>& bytes, int64_t i, ir::DType dtype) {
  const uint8_t* at = &bytes[static_cast<size_t>(i * ir::dtypeBytes(dtype))];
  if (dtype == ir::DType::F32) {
    float v = 0;
    std::memcpy(&v, at, 4);
    return v;
  }
  uint16_t h = 0;
  std::memcpy(&h, at, 2);
  return dtype == ir::DType::F16 ? interp::halfBitsToFloat(h) : interp::bf16BitsToFloat(h);
}

interp::Tensor bytesToTensor(const std::vector<uint8_t>& bytes, const ir::Shape& shape, ir::DType dtype) {
  interp::Tensor t(shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data[static_cast<size_t>(i)] = elementAt(bytes, i, dtype);
  return t;
}

}  // namespace mirage::backend
