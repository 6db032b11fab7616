// Tensor indexing helpers and the deterministic random fill.
#include "mirage/interp/tensor.h"

#include <stdexcept>

#include "mirage/interp/rounding.h"

namespace mirage::interp {

int64_t flatIndex(const ir::Shape& shape, const std::vector<int64_t>& index) {
  if (index.size() != shape.size()) throw std::out_of_range("index rank differs from tensor rank");
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d]) throw std::out_of_range("index out of range");
    offset = offset * shape[d] + index[d];
  }
  return offset;
}

std::vector<int64_t> unflatIndex(const ir::Shape& shape, int64_t offset) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = offset % shape[d];
    offset /= shape[d];
  }
  return index;
}

float Tensor::at(const std::vector<int64_t>& index) const {
  return data[static_cast<size_t>(flatIndex(shape, index))];
}

float& Tensor::at(const std::vector<int64_t>& index) {
  return data[static_cast<size_t>(flatIndex(shape, index))];
}

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with a fixed,
// documented output sequence, unlike std::uniform_real_distribution whose
// results differ between standard libraries.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

Tensor randomTensor(const ir::Shape& shape, ir::DType dtype, uint64_t seed,
                    const std::string& name) {
  Tensor t(shape);
  uint64_t state = seed ^ fnv1a(name);
  for (float& x : t.data) {
    // 24 random bits -> k / 2^23 - 1, a multiple of 2^-23 in [-1, 1): exact in f32.
    uint64_t k = splitmix64(state) >> 40;
    x = static_cast<float>(static_cast<double>(k) * 0x1p-23 - 1.0);
  }
  roundInPlace(t.data.data(), t.size(), dtype);
  return t;
}

}  // namespace mirage::interp
