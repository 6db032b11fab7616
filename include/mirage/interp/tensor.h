// A host tensor for the reference interpreter: a row-major shape and its
// elements as f32. Tensors of f16 or bf16 programs hold values that are exactly
// representable in that dtype (see rounding.h); the storage is always f32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::interp {

struct Tensor {
  ir::Shape shape;  // empty for a scalar (one element)
  std::vector<float> data;

  Tensor() = default;
  explicit Tensor(ir::Shape s, float fill = 0.0f)
      : shape(std::move(s)), data(static_cast<size_t>(ir::numElements(shape)), fill) {}
  Tensor(ir::Shape s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {}

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t size() const { return static_cast<int64_t>(data.size()); }
  // Element at a full index (one entry per dim); for tests and messages.
  float at(const std::vector<int64_t>& index) const;
  float& at(const std::vector<int64_t>& index);
};

// Row-major offset of `index` in `shape`.
int64_t flatIndex(const ir::Shape& shape, const std::vector<int64_t>& index);
// Inverse of flatIndex.
std::vector<int64_t> unflatIndex(const ir::Shape& shape, int64_t offset);

// A tensor filled deterministically from (seed, name): every element uniform
// in [-1, 1) (24 random bits), then rounded to `dtype`. The same seed and name
// give the same data on every machine and in every program, so two programs
// with the same inputs see the same values.
Tensor randomTensor(const ir::Shape& shape, ir::DType dtype, uint64_t seed,
                    const std::string& name);

}  // namespace mirage::interp
