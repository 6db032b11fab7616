// The float64 reference evaluator (reference64.h): it agrees with the f32
// interpreter on every file-driven f32 program, it does not round to the
// program dtype (where the interpreter must), it keeps values that overflow
// f16 and f32, and it refuses programs with custom kernels.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>

#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/parse/parser.h"

using namespace mirage;
using interp::Tensor;
using interp::Tensor64;

namespace {

ir::Graph parseText(const std::string& text) {
  parse::Diagnostics diags("<test>", text);
  auto g = parse::parseProgram(text, diags);
  REQUIRE(g);
  return *g;
}

std::vector<Tensor> randomInputs(const ir::Graph& g, uint64_t seed) {
  std::vector<Tensor> in;
  for (ir::ValueId v : g.inputs)
    in.push_back(interp::randomTensor(g.value(v).shape, g.dtype, seed, g.value(v).name));
  return in;
}

bool hasKernel(const ir::Graph& g) {
  for (const ir::Op& op : g.ops)
    if (op.kind == ir::OpKind::Kernel) return true;
  return false;
}

}  // namespace

TEST_CASE("float64 reference agrees with the f32 interpreter on the file-driven programs", "[reference64]") {
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(REFERENCE64_PROGRAMS_DIR)) {
    std::ostringstream err;
    auto g = parse::parseFile(entry.path().string(), err);
    REQUIRE(g);
    if (hasKernel(*g) || g->dtype != ir::DType::F32) continue;
    INFO(entry.path().filename().string());
    std::vector<Tensor> in = randomInputs(*g, 3);
    std::vector<Tensor> f32 = interp::evaluate(*g, in);
    std::vector<Tensor64> f64 = interp::evaluate64(*g, in);
    REQUIRE(f64.size() == f32.size());
    for (size_t o = 0; o < f32.size(); ++o) {
      REQUIRE(f64[o].shape == f32[o].shape);
      for (size_t i = 0; i < f32[o].data.size(); ++i) {
        if (std::isnan(f32[o].data[i])) {
          CHECK(std::isnan(f64[o].data[i]));
          continue;
        }
        CHECK(f64[o].data[i] == Approx(f32[o].data[i]).epsilon(1e-5).margin(1e-6));
      }
    }
    ++compared;
  }
  CHECK(compared >= 6);
}

TEST_CASE("float64 reference: the softmax and rms_norm expansions by hand", "[reference64]") {
  ir::Graph g = parseText(R"(graph t {
    S = input f16[1, 2]
    X = input f16[1, 2]
    P = softmax(S)
    N = rms_norm(X)
    T = transpose(matmul(transpose(X, dim0=0, dim1=1), X), dim0=0, dim1=1)
    output P, N, T
  })");
  Tensor s(ir::Shape{1, 2}, std::vector<float>{0.0f, 1.0f});
  Tensor x(ir::Shape{1, 2}, std::vector<float>{3.0f, 4.0f});
  std::vector<Tensor64> r = interp::evaluate64(g, {s, x});
  REQUIRE(r.size() == 3);
  double e = std::exp(1.0);
  CHECK(r[0].data[0] == Approx(1.0 / (1.0 + e)).epsilon(1e-15));
  CHECK(r[0].data[1] == Approx(e / (1.0 + e)).epsilon(1e-15));
  CHECK(r[1].data[0] == Approx(3.0 / std::sqrt(12.5)).epsilon(1e-15));
  CHECK(r[1].data[1] == Approx(4.0 / std::sqrt(12.5)).epsilon(1e-15));
  REQUIRE(r[2].shape == ir::Shape{2, 2});
  CHECK(r[2].data == std::vector<double>{9, 12, 12, 16});
}

TEST_CASE("float64 reference does not round to the program dtype", "[reference64]") {
  // 1 + 2^-12 is 1 in f16 (the interpreter rounds the stored sum) but not in
  // double; exp(12) = 162754.79 overflows f16, and exp(100) overflows f32.
  ir::Graph g = parseText(R"(graph t {
    A = input f16[3]
    B = sub(add(A, 0.000244140625), A)
    E = exp(mul(A, 12))
    F = exp(mul(A, 100))
    output B, E, F
  })");
  Tensor a(ir::Shape{3}, std::vector<float>{1.0f, 1.0f, 1.0f});
  std::vector<Tensor> low = interp::evaluate(g, {a});
  std::vector<Tensor64> ref = interp::evaluate64(g, {a});
  CHECK(low[0].data[0] == 0.0f);
  CHECK(ref[0].data[0] == 0x1p-12);
  CHECK(std::isinf(low[1].data[0]));
  CHECK(ref[1].data[0] == Approx(std::exp(12.0)).epsilon(1e-15));
  CHECK(ref[2].data[0] == Approx(std::exp(100.0)).epsilon(1e-15));
}

TEST_CASE("float64 reference: reductions with size, broadcasting and the NaN of a max", "[reference64]") {
  ir::Graph g = parseText(R"(graph t {
    A = input f32[2, 4]
    C = input f32[2, 1]
    R = reduce_sum(A, dim=1, size=2)
    M = reduce_max(A, dim=0)
    Q = reduce_mean(div(A, C), dim=1)
    output R, M, Q
  })");
  Tensor a(ir::Shape{2, 4}, std::vector<float>{1, 2, 3, 4, 5, 6, NAN, 8});
  Tensor c(ir::Shape{2, 1}, std::vector<float>{2, 4});
  std::vector<Tensor64> r = interp::evaluate64(g, {a, c});
  REQUIRE(r[0].shape == ir::Shape{2, 2});
  CHECK(r[0].data[0] == 4);  // 1 + 3
  CHECK(r[0].data[1] == 6);  // 2 + 4
  CHECK(std::isnan(r[0].data[2]));
  CHECK(r[0].data[3] == 14);
  CHECK(r[1].data[0] == 5);
  CHECK(std::isnan(r[1].data[2]));
  CHECK(r[2].data[0] == Approx(10.0 / 8).epsilon(1e-15));
}

TEST_CASE("float64 reference refuses custom kernels and wrong inputs", "[reference64]") {
  ir::Graph g = parseText(R"(graph t {
    A = input f16[4]
    K = kernel(A) {
      a = tile(A)
      save(accum(a), K)
    }
    output K
  })");
  CHECK_THROWS_AS(interp::evaluate64(g, {Tensor(ir::Shape{4}, 1.0f)}), interp::EvalError);
  ir::Graph h = parseText("graph t {\n A = input f16[4]\n output A\n}");
  CHECK_THROWS_AS(interp::evaluate64(h, {Tensor(ir::Shape{3}, 1.0f)}), interp::EvalError);
  CHECK_THROWS_AS(interp::evaluate64(h, {}), interp::EvalError);
}
