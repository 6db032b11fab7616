// Shared by the generator tests: the interpreter at f32 and the float64
// reference agree on a generated program (within 1e-4 of the largest output
// magnitude, where the reference is finite).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/ir/graph.h"

namespace fuzz_test {

// Evaluates `g` (its dtype set to f32) on random inputs drawn from `seed`.
inline void requireInterpreterAgreesWithFloat64(mirage::ir::Graph g, uint64_t seed) {
  using namespace mirage;
  g.dtype = ir::DType::F32;
  std::vector<interp::Tensor> inputs;
  for (ir::ValueId in : g.inputs)
    inputs.push_back(interp::randomTensor(g.value(in).shape, ir::DType::F32, seed, g.value(in).name));
  auto f32 = interp::evaluate(g, inputs);
  auto f64 = interp::evaluate64(g, inputs);
  REQUIRE(f32.size() == f64.size());
  for (size_t o = 0; o < f32.size(); ++o) {
    REQUIRE(f32[o].shape == f64[o].shape);
    double scale = 0;
    for (double x : f64[o].data) scale = std::max(scale, std::fabs(x));
    for (size_t e = 0; e < f32[o].data.size(); ++e)
      if (std::isfinite(f64[o].data[e])) REQUIRE(std::fabs(f32[o].data[e] - f64[o].data[e]) <= 1e-4 * (scale + 1));
  }
}

}  // namespace fuzz_test
