// NumPy .npy files (format versions 1.0, 2.0 and 3.0): reading float16,
// float32 and float64 arrays in C order, little-endian, into a Tensor of a
// program dtype (converted with round-to-nearest-even, once); writing a
// Tensor as float16 (f16) or float32 (f32, and bf16, which NumPy lacks).
#pragma once

#include <stdexcept>
#include <string>

#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::interp {

// A file that cannot be read or written, or is not a supported .npy; the
// message starts with the file name and says what is wrong.
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `path`, rounding every element to `dtype`. A rank-0 file gives a
// tensor of empty shape.
Tensor readNpy(const std::string& path, ir::DType dtype);

// Parses .npy bytes already in memory; `name` is used in messages.
Tensor parseNpy(const std::string& bytes, const std::string& name, ir::DType dtype);

// The .npy bytes of `t` stored as `dtype` (f16 -> '<f2', f32 and bf16 -> '<f4'),
// version 1.0, header padded to a multiple of 64 bytes as NumPy does. The
// values are rounded to `dtype` first.
std::string formatNpy(const Tensor& t, ir::DType dtype);

// Writes formatNpy(t, dtype) to `path` atomically: into a temporary file in
// the same directory, then renamed over `path`, so `path` is either written
// whole or left as it was.
void writeNpy(const std::string& path, const Tensor& t, ir::DType dtype);

// Writes `bytes` to `path` atomically (as above).
void writeFileAtomically(const std::string& path, const std::string& bytes);

}  // namespace mirage::interp
