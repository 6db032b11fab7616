// The comparisons of compare.h.
#include "compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "mirage/fuzz/generate.h"
#include "mirage/interp/rounding.h"

namespace mirage::fuzz {

std::vector<InputFamily> inputFamilies(ir::DType dtype) {
  // f16 tops out at 65504: a square of 16 summed over 64 elements still fits.
  double large = dtype == ir::DType::F16 ? 16 : 1000;
  return {{"uniform", 1, 0, true}, {"large", large, 0, false}, {"offset", 1, 8, false}};
}

std::vector<interp::Tensor> familyInputs(const ir::Graph& program, const InputFamily& family, uint64_t seed) {
  std::vector<interp::Tensor> inputs;
  for (ir::ValueId v : program.inputs) {
    const ir::Value& val = program.value(v);
    interp::Tensor t = interp::randomTensor(val.shape, ir::DType::F32, seed, val.name);
    for (float& x : t.data) x = interp::roundToDType(family.scale * x + family.offset, program.dtype);
    inputs.push_back(std::move(t));
  }
  return inputs;
}

std::vector<interp::Tensor> nudgedInputs(const std::vector<interp::Tensor>& inputs, ir::DType dtype, uint64_t seed) {
  std::vector<interp::Tensor> out = inputs;
  Rng rng(seed ^ 0x6e756467ULL);
  double eps = dtypeEpsilon(dtype);
  for (interp::Tensor& t : out)
    for (float& x : t.data) {
      // One unit in the last place of x's binade, [2^(e-1), 2^e): x plus or
      // minus it is representable in the dtype.
      int e = 0;
      std::frexp(static_cast<double>(x), &e);
      double ulp = std::ldexp(eps, e - 1);
      bool up = rng.chance(0.5);
      if (x != 0) x = interp::roundToDType(static_cast<float>(static_cast<double>(x) + (up ? ulp : -ulp)), dtype);
    }
  return out;
}

double dtypeEpsilon(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F16: return 0x1.0p-10;
    case ir::DType::BF16: return 0x1.0p-7;
    case ir::DType::F32: return 0x1.0p-23;
  }
  return 0x1.0p-10;
}

double relativeError(const interp::Tensor& x, const interp::Tensor64& ref) {
  double maxDiff = 0, maxRef = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    if (!std::isfinite(x.data[i])) return std::numeric_limits<double>::infinity();
    maxDiff = std::max(maxDiff, std::fabs(static_cast<double>(x.data[i]) - ref.data[i]));
    maxRef = std::max(maxRef, std::fabs(ref.data[i]));
  }
  return maxRef > 0 ? maxDiff / maxRef : maxDiff;
}

bool allFinite(const std::vector<interp::Tensor64>& ts) {
  for (const interp::Tensor64& t : ts)
    for (double x : t.data)
      if (!std::isfinite(x)) return false;
  return true;
}

bool allFinite(const interp::Tensor& t) {
  return std::all_of(t.data.begin(), t.data.end(), [](float x) { return std::isfinite(x); });
}

std::string firstMismatch(const interp::Tensor& a, const interp::Tensor& b, const interp::Tensor64* ref, ir::DType dtype) {
  if (a.shape != b.shape)
    return fmt::format("shapes differ: {} and {}", ir::shapeToString(a.shape), ir::shapeToString(b.shape));
  double eps = dtypeEpsilon(dtype), scale = 0;
  for (float x : a.data)
    if (std::isfinite(x)) scale = std::max(scale, static_cast<double>(std::fabs(x)));
  double interpError = 0;  // the interpreter's largest error against float64
  if (ref)
    for (size_t i = 0; i < a.data.size(); ++i)
      if (std::isfinite(a.data[i]) && std::isfinite(ref->data[i]))
        interpError = std::max(interpError, std::fabs(a.data[i] - ref->data[i]));
  for (size_t i = 0; i < a.data.size(); ++i) {
    double x = a.data[i], y = b.data[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    if (x == y) continue;  // also equal infinities
    double tol = kShimUlps * eps * std::max(std::fabs(x), std::fabs(y)) + kShimScaleUlps * eps * scale;
    if (std::fabs(x - y) <= tol) continue;
    if (ref && std::isfinite(x) && std::isfinite(y) && std::isfinite(ref->data[i])) {
      double r = ref->data[i];
      if (std::fabs(y - r) <= kShimRefFactor * interpError + tol) continue;
      return fmt::format(
          "at [{}] the interpreter gives {} and the shim {} (float64: {}; the interpreter's largest error on this "
          "output {:.3g}; tolerance {:.3g})",
          fmt::join(interp::unflatIndex(a.shape, static_cast<int64_t>(i)), ", "), x, y, r, interpError, tol);
    }
    return fmt::format("at [{}] the interpreter gives {} and the shim {} (tolerance {:.3g})",
                       fmt::join(interp::unflatIndex(a.shape, static_cast<int64_t>(i)), ", "), x, y, tol);
  }
  return "";
}

}  // namespace mirage::fuzz
