// Every pre-defined operator evaluated by the interpreter on small programs,
// against values computed by hand; broadcasting, negative dims, and rounding
// of program-level results to the program dtype.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <tuple>

#include "graph_builders.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/interp/rounding.h"

using namespace mirage;
using namespace mirage::testing;
using interp::Tensor;

namespace {

ir::Graph program(ir::DType dtype = ir::DType::F32) {
  ir::Graph g;
  g.name = "test";
  g.dtype = dtype;
  return g;
}

// Evaluates g with output `out` set as its only output.
Tensor run(ir::Graph g, ValueId out, const std::vector<Tensor>& inputs) {
  g.outputs = {out};
  std::vector<Tensor> r = interp::evaluate(g, inputs);
  REQUIRE(r.size() == 1);
  return r[0];
}

void checkValues(const Tensor& t, const Shape& shape, const std::vector<float>& expected,
                 double rel = 1e-6) {
  REQUIRE(t.shape == shape);
  REQUIRE(t.data.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(t.data[i] == Approx(expected[i]).epsilon(rel).margin(1e-7));
  }
}

}  // namespace

TEST_CASE("matmul of 2-d operands", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 3}), b = input(g, "B", {3, 2});
  Tensor r = run(g, binary(g, OpKind::Matmul, a, b),
                 {Tensor({2, 3}, {1, 2, 3, 4, 5, 6}), Tensor({3, 2}, {7, 8, 9, 10, 11, 12})});
  // [1 2 3; 4 5 6] · [7 8; 9 10; 11 12] = [58 64; 139 154]
  checkValues(r, {2, 2}, {58, 64, 139, 154});
}

TEST_CASE("matmul broadcasts batch dims", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 1, 2, 2}), b = input(g, "B", {3, 2, 1});
  // A[i] = (i+1)·I for i in 0..1; B[j] = [j; 1] for j in 0..2; out[i, j] = (i+1)·[j; 1].
  Tensor ta({2, 1, 2, 2}, {1, 0, 0, 1, 2, 0, 0, 2});
  Tensor tb({3, 2, 1}, {0, 1, 1, 1, 2, 1});
  Tensor r = run(g, binary(g, OpKind::Matmul, a, b), {ta, tb});
  checkValues(r, {2, 3, 2, 1}, {0, 1, 1, 1, 2, 1, 0, 2, 2, 2, 4, 2});
}

TEST_CASE("element-wise binary operators and broadcasting", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 3}), row = input(g, "R", {3}), col = input(g, "C", {2, 1});
  Tensor ta({2, 3}, {1, 2, 3, 4, 5, 6}), tr({3}, {10, 20, 30}), tc({2, 1}, {2, 4});
  std::vector<Tensor> in = {ta, tr, tc};
  SECTION("add with a row") {
    checkValues(run(g, binary(g, OpKind::Add, a, row), in), {2, 3}, {11, 22, 33, 14, 25, 36});
  }
  SECTION("sub with a column") {
    checkValues(run(g, binary(g, OpKind::Sub, a, col), in), {2, 3}, {-1, 0, 1, 0, 1, 2});
  }
  SECTION("mul of a column and a row stretches both") {
    checkValues(run(g, binary(g, OpKind::Mul, col, row), in), {2, 3}, {20, 40, 60, 40, 80, 120});
  }
  SECTION("div by a column") {
    checkValues(run(g, binary(g, OpKind::Div, a, col), in), {2, 3}, {0.5f, 1, 1.5f, 1, 1.25f, 1.5f});
  }
  SECTION("a number on either side") {
    ValueId half = constant(g, "0.5"), one = constant(g, "1");
    checkValues(run(g, binary(g, OpKind::Mul, a, half), in), {2, 3}, {0.5f, 1, 1.5f, 2, 2.5f, 3});
    checkValues(run(g, binary(g, OpKind::Sub, one, a), in), {2, 3}, {0, -1, -2, -3, -4, -5});
    checkValues(run(g, binary(g, OpKind::Div, one, col), in), {2, 1}, {0.5f, 0.25f});
  }
}

TEST_CASE("broadcasting adds missing leading dims", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 1, 3}), b = input(g, "B", {2, 1});
  // out[i, j, k] = A[i, 0, k] + B[j, 0]
  Tensor ta({2, 1, 3}, {1, 2, 3, 4, 5, 6}), tb({2, 1}, {10, 100});
  checkValues(run(g, binary(g, OpKind::Add, a, b), {ta, tb}), {2, 2, 3},
              {11, 12, 13, 101, 102, 103, 14, 15, 16, 104, 105, 106});
}

TEST_CASE("element-wise unary operators", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {4});
  std::vector<Tensor> in = {Tensor({4}, {-2, 0, 1, 4})};
  SECTION("exp") {
    checkValues(run(g, unary(g, OpKind::Exp, a), in), {4}, {0.1353352832f, 1, 2.718281828f, 54.59815003f});
  }
  SECTION("square") { checkValues(run(g, unary(g, OpKind::Square, a), in), {4}, {4, 0, 1, 16}); }
  SECTION("sqrt") {
    Tensor r = run(g, unary(g, OpKind::Sqrt, a), in);
    CHECK(std::isnan(r.data[0]));
    CHECK(r.data[1] == 0);
    CHECK(r.data[2] == 1);
    CHECK(r.data[3] == 2);
  }
  SECTION("rsqrt") {
    Tensor r = run(g, unary(g, OpKind::Rsqrt, a), in);
    CHECK(std::isinf(r.data[1]));
    CHECK(r.data[2] == 1);
    CHECK(r.data[3] == 0.5f);
  }
  SECTION("silu") {
    // x / (1 + e^-x): -2/(1+e^2), 0, 1/(1+e^-1), 4/(1+e^-4)
    checkValues(run(g, unary(g, OpKind::Silu, a), in), {4},
                {-0.2384058440f, 0, 0.7310585786f, 3.928055160f});
  }
  SECTION("gelu (erf form)") {
    // x/2 (1 + erf(x/√2)): gelu(-2) = -0.04550026, gelu(1) = 0.8413447, gelu(4) = 3.9998733
    checkValues(run(g, unary(g, OpKind::Gelu, a), in), {4}, {-0.0455002639f, 0, 0.8413447461f, 3.999873306f},
                1e-5);
  }
  SECTION("relu") { checkValues(run(g, unary(g, OpKind::Relu, a), in), {4}, {0, 0, 1, 4}); }
}

TEST_CASE("reductions keep the reduced dim", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 3});
  std::vector<Tensor> in = {Tensor({2, 3}, {1, 5, 3, -4, -2, -6})};
  SECTION("sum over dim 0") { checkValues(run(g, reduce(g, OpKind::ReduceSum, a, 0), in), {1, 3}, {-3, 3, -3}); }
  SECTION("sum over dim -1") { checkValues(run(g, reduce(g, OpKind::ReduceSum, a, -1), in), {2, 1}, {9, -12}); }
  SECTION("mean over dim 1") { checkValues(run(g, reduce(g, OpKind::ReduceMean, a, 1), in), {2, 1}, {3, -4}); }
  SECTION("max over dim -1") { checkValues(run(g, reduce(g, OpKind::ReduceMax, a, -1), in), {2, 1}, {5, -2}); }
  SECTION("max over dim -2") { checkValues(run(g, reduce(g, OpKind::ReduceMax, a, -2), in), {1, 3}, {1, 5, 3}); }
}

TEST_CASE("reduce_sum with size sums strided groups", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 6});
  // out[r, c] = sum_j A[r, c + 2j]
  std::vector<Tensor> in = {Tensor({2, 6}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60})};
  checkValues(run(g, reduce(g, OpKind::ReduceSum, a, 1, 2), in), {2, 2}, {9, 12, 90, 120});
  ir::Graph h = program();
  ValueId b = input(h, "A", {2, 6});
  checkValues(run(h, reduce(h, OpKind::ReduceSum, b, -1, 3), in), {2, 3}, {5, 7, 9, 50, 70, 90});
}

TEST_CASE("reduce over a middle dim", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 2, 2});
  std::vector<Tensor> in = {Tensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})};
  checkValues(run(g, reduce(g, OpKind::ReduceSum, a, 1), in), {2, 1, 2}, {4, 6, 12, 14});
}

TEST_CASE("transpose", "[interp][ops]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2, 3});
  std::vector<Tensor> in = {Tensor({2, 3}, {1, 2, 3, 4, 5, 6})};
  checkValues(run(g, transpose(g, a, 0, -1), in), {3, 2}, {1, 4, 2, 5, 3, 6});
  ir::Graph h = program();
  ValueId b = input(h, "B", {2, 2, 3});
  Tensor tb({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  // out[k, j, i] = B[i, j, k]
  checkValues(run(h, transpose(h, b, 0, 2), {tb}), {3, 2, 2}, {1, 7, 4, 10, 2, 8, 5, 11, 3, 9, 6, 12});
}

TEST_CASE("program-level results are rounded to the program dtype", "[interp][rounding]") {
  ir::Graph g = program(ir::DType::F16);
  ValueId a = input(g, "A", {3});
  ValueId third = constant(g, "3");
  ValueId d = binary(g, OpKind::Div, a, third);
  ValueId m = binary(g, OpKind::Mul, d, third);
  Tensor r = run(g, m, {Tensor({3}, {1, 2, 1000})});
  // 1/3 in f16 is 0x3555 = 0.333251953125; times 3 = 0.999755859375, which
  // rounds (f16 ulp below 1 is 2^-11) to 0.99951171875 or 1: 0.999755859375 is
  // exactly half-way and goes to even, 1.0.
  CHECK(r.data[0] == 1.0f);
  float twoThirds = interp::roundToDType(2.0f / 3.0f, ir::DType::F16);
  CHECK(r.data[1] == interp::roundToDType(twoThirds * 3.0f, ir::DType::F16));
  CHECK(r.data[2] == interp::roundToDType(interp::roundToDType(1000.0f / 3.0f, ir::DType::F16) * 3.0f,
                                          ir::DType::F16));
}

TEST_CASE("inputs are rounded to the program dtype", "[interp][rounding]") {
  ir::Graph g = program(ir::DType::BF16);
  ValueId a = input(g, "A", {1});
  g.outputs = {a};
  std::vector<Tensor> r = interp::evaluate(g, {Tensor({1}, {1.0f + 1.0f / 512})});
  CHECK(r[0].data[0] == 1.0f);  // 1 + 2^-9 is below the bf16 tie (2^-8)
}

TEST_CASE("matmul sums in f32, then rounds once", "[interp][rounding]") {
  ir::Graph g = program(ir::DType::F16);
  ValueId a = input(g, "A", {1, 4}), b = input(g, "B", {4, 1});
  // 2048 + 1 + 1 + 0: in f16 2048 + 1 would round back to 2048 (ulp 2 there,
  // tie to even), but in f32 the sum is 2050, representable in f16.
  Tensor r = run(g, binary(g, OpKind::Matmul, a, b), {Tensor({1, 4}, {2048, 1, 1, 0}), Tensor({4, 1}, {1, 1, 1, 1})});
  CHECK(r.data[0] == 2050.0f);
}

TEST_CASE("evaluate by name checks the inputs", "[interp]") {
  ir::Graph g = program();
  ValueId a = input(g, "A", {2});
  g.outputs = {unary(g, OpKind::Square, a)};
  std::map<std::string, Tensor> ok = {{"A", Tensor({2}, {3, -1})}};
  checkValues(interp::evaluateByName(g, ok)[0], {2}, {9, 1});
  std::map<std::string, Tensor> missing;
  CHECK_THROWS_WITH(interp::evaluateByName(g, missing), Catch::Contains("no value given for input 'A'"));
  std::map<std::string, Tensor> extra = {{"A", Tensor({2}, {3, -1})}, {"B", Tensor({1})}};
  CHECK_THROWS_WITH(interp::evaluateByName(g, extra), Catch::Contains("no input named 'B'"));
  std::map<std::string, Tensor> wrong = {{"A", Tensor({3})}};
  CHECK_THROWS_WITH(interp::evaluateByName(g, wrong), Catch::Contains("input 'A' has shape [3], expected [2]"));
}

TEST_CASE("matmul rounds each product and sum as the portable loop does", "[interp][ops]") {
  // The matmul loops are compiled for the machine's vector width
  // (lib/interp/dense_matmul.cpp); a fused multiply-add would round once
  // where the contract's f32 sum rounds twice. Odd extents reach every
  // remainder loop; magnitudes far apart make fused and unfused differ.
  for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{3, 29, 45}, {5, 64, 100}, {2, 7, 3}, {40, 33, 17}}) {
    ir::Graph g = program();
    ValueId a = input(g, "A", {m, k}), b = input(g, "B", {k, n});
    g.outputs = {binary(g, OpKind::Matmul, a, b)};
    Tensor ta({m, k}), tb({k, n});
    uint64_t s = 12345;
    auto next = [&s] {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      double u = static_cast<double>(s >> 11) / 9007199254740992.0;  // [0, 1)
      return static_cast<float>((u - 0.5) * std::ldexp(1.0, static_cast<int>(s % 23) - 11));
    };
    for (float& x : ta.data) x = next();
    for (float& x : tb.data) x = next();
    std::vector<float> want(static_cast<size_t>(m * n), 0.0f);
    std::vector<double> want64(want.size(), 0.0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        for (int64_t j = 0; j < n; ++j) {
          // volatile: the product is rounded before the sum, whatever this file's flags.
          volatile float prod = ta.data[static_cast<size_t>(i * k + p)] * tb.data[static_cast<size_t>(p * n + j)];
          want[static_cast<size_t>(i * n + j)] += prod;
          volatile double prod64 = static_cast<double>(ta.data[static_cast<size_t>(i * k + p)]) *
                                   static_cast<double>(tb.data[static_cast<size_t>(p * n + j)]);
          want64[static_cast<size_t>(i * n + j)] += prod64;
        }
    INFO(m << " x " << k << " x " << n);
    std::vector<Tensor> got = interp::evaluate(g, {ta, tb});
    REQUIRE(got.size() == 1);
    std::vector<interp::Tensor64> got64 = interp::evaluate64(g, {ta, tb});
    REQUIRE(got64.size() == 1);
    int differ = 0, differ64 = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      differ += std::memcmp(&got[0].data[i], &want[i], sizeof(float)) != 0;
      differ64 += std::memcmp(&got64[0].data[i], &want64[i], sizeof(double)) != 0;
    }
    CHECK(differ == 0);
    CHECK(differ64 == 0);
  }
}
