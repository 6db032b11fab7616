// The oracle's comparisons: the interpreter-against-shim test accepts
// rounding (a few ulps, or an error no larger than the interpreter's own
// against float64) and rejects a real disagreement; the relative error
// against float64 is infinite for a non-finite result.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "compare.h"
#include "mirage/interp/rounding.h"

using namespace mirage;

namespace {

interp::Tensor64 ref(std::vector<double> d) {
  interp::Tensor64 t;
  t.shape = {static_cast<int64_t>(d.size())};
  t.data = std::move(d);
  return t;
}

interp::Tensor tensor(std::vector<float> d) {
  ir::Shape s = {static_cast<int64_t>(d.size())};
  return interp::Tensor(s, std::move(d));
}

}  // namespace

TEST_CASE("interpreter and shim: rounding agrees, a wrong value does not") {
  auto a = tensor({1.0f, 2.0f, -3.0f});
  CHECK(fuzz::firstMismatch(a, a, nullptr, ir::DType::F16).empty());
  // One f16 ulp at 2 (2^-9) is within a few ulps.
  CHECK(fuzz::firstMismatch(a, tensor({1.0f, 2.0f + 0x1.0p-9f, -3.0f}), nullptr, ir::DType::F16).empty());
  CHECK(!fuzz::firstMismatch(a, tensor({1.0f, 2.5f, -3.0f}), nullptr, ir::DType::F16).empty());
  // NaN against NaN agrees; NaN against a number does not.
  float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(fuzz::firstMismatch(tensor({nan}), tensor({nan}), nullptr, ir::DType::F32).empty());
  CHECK(!fuzz::firstMismatch(tensor({nan}), tensor({1.0f}), nullptr, ir::DType::F32).empty());
}

TEST_CASE("interpreter and shim: an error as large as the interpreter's own is rounding") {
  // f32, exact value 62.9169; the interpreter is off by 3e-5 on one element,
  // the shim by 6e-5 on another: both rounding of an amplifying chain.
  auto r = ref({62.9169, 10.0});
  auto interp = tensor({62.9169f, 10.00003f});
  auto shim = tensor({62.91696f, 10.0f});
  CHECK(!fuzz::firstMismatch(interp, shim, nullptr, ir::DType::F32).empty());  // beyond a few ulps alone
  CHECK(fuzz::firstMismatch(interp, shim, &r, ir::DType::F32).empty());
  // Far beyond the interpreter's error: a disagreement.
  auto wrong = tensor({-4.5f, 10.0f});
  CHECK(!fuzz::firstMismatch(interp, wrong, &r, ir::DType::F32).empty());
}

TEST_CASE("relative error against float64") {
  CHECK(fuzz::relativeError(tensor({1.0f, 2.0f}), ref({1.0, 2.0})) == 0);
  CHECK(fuzz::relativeError(tensor({1.0f, 2.5f}), ref({1.0, 2.0})) == Approx(0.25));
  CHECK(std::isinf(fuzz::relativeError(tensor({INFINITY, 2.0f}), ref({1.0, 2.0}))));
  CHECK(fuzz::relativeError(tensor({0.5f}), ref({0.0})) == Approx(0.5));  // absolute when the reference is 0
}

TEST_CASE("nudged inputs move each element by one unit of the dtype, deterministically") {
  for (ir::DType dtype : {ir::DType::F16, ir::DType::BF16, ir::DType::F32}) {
    INFO(ir::dtypeName(dtype));
    std::vector<interp::Tensor> in = {tensor({1.0f, -3.0f, 0.0f, 1000.0f, 0.375f, -0.01f})};
    for (float& x : in[0].data) x = interp::roundToDType(x, dtype);
    auto a = fuzz::nudgedInputs(in, dtype, 5);
    auto b = fuzz::nudgedInputs(in, dtype, 5);
    auto c = fuzz::nudgedInputs(in, dtype, 6);
    CHECK(a[0].data == b[0].data);
    CHECK(a[0].data != c[0].data);
    double eps = fuzz::dtypeEpsilon(dtype);
    for (size_t i = 0; i < in[0].data.size(); ++i) {
      float x = in[0].data[i], y = a[0].data[i];
      CHECK(interp::roundToDType(y, dtype) == y);  // representable
      if (x == 0) {
        CHECK(y == 0);
        continue;
      }
      CHECK(y != x);  // moved...
      CHECK(std::fabs(y - x) <= eps * std::fabs(x));  // ...by one unit in the last place
    }
  }
}
