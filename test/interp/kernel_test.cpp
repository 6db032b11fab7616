// The block-level semantics of custom kernels, on small cases computed by
// hand: imap splits, replication along unmapped grid dims, fmap and the
// for-loop, accum (sum and max), operations after the loop, and omap.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "graph_builders.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"

using namespace mirage;
using namespace mirage::testing;
using interp::Tensor;

namespace {

constexpr int X = 0, Y = 1, Z = 2;

ir::DimMap map(std::initializer_list<std::pair<int, int>> entries) {
  ir::DimMap m = ir::kEmptyMap;
  for (auto [g, d] : entries) m[static_cast<size_t>(g)] = d;
  return m;
}

Tensor iota(const Shape& s, float start = 0) {
  Tensor t(s);
  std::iota(t.data.begin(), t.data.end(), start);
  return t;
}

// A program with one input A of shape `shape` and one kernel whose body
// `build` fills; returns the kernel's single result evaluated on `a`.
template <typename F>
Tensor runKernel(const Shape& shape, const Tensor& a, ir::KernelConfig cfg, F build,
                 ir::DType dtype = ir::DType::F32) {
  ir::Graph g;
  g.name = "k";
  g.dtype = dtype;
  ValueId in = input(g, "A", shape);
  Body body(g, {in}, cfg);
  build(body);
  std::vector<ValueId> r = kernel(g, {in}, body, {"R"});
  g.outputs = r;
  return interp::evaluate(g, {a})[0];
}

void checkValues(const Tensor& t, const Shape& shape, const std::vector<float>& expected) {
  REQUIRE(t.shape == shape);
  REQUIRE(t.data.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(t.data[i] == Approx(expected[i]).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("imap: block i sees chunk i, omap places it", "[interp][kernel]") {
  // A = [[0,1],[2,3],[4,5],[6,7]]; two blocks along x split dim 0: block 0
  // sees rows 0-1, block 1 rows 2-3. Saved with omap={x:1}, block i's tile
  // becomes columns 2i..2i+1 of R[2, 4].
  Tensor r = runKernel({4, 2}, iota({4, 2}), config({2, 1, 1}, 1), [](Body& b) {
    ValueId t = b.tile(0, map({{X, 0}}));
    b.save(b.accum(t), 0, map({{X, 1}}));
  });
  checkValues(r, {2, 4}, {0, 1, 4, 5, 2, 3, 6, 7});
}

TEST_CASE("imap and omap on the same dim copy the tensor (negative dims)", "[interp][kernel]") {
  Tensor r = runKernel({4, 2}, iota({4, 2}), config({2, 1, 1}, 1), [](Body& b) {
    b.save(b.accum(b.tile(0, map({{X, -2}}))), 0, map({{X, -2}}));
  });
  checkValues(r, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("an unmapped grid dim replicates the tile", "[interp][kernel]") {
  SECTION("no imap at all: every block sees the whole tensor") {
    Tensor r = runKernel({2}, Tensor({2}, {1, 2}), config({3, 1, 1}, 1), [](Body& b) {
      b.save(b.accum(b.tile(0, ir::kEmptyMap)), 0, map({{X, 0}}));
    });
    checkValues(r, {6}, {1, 2, 1, 2, 1, 2});
  }
  SECTION("x splits, y replicates") {
    // grid [2, 3]: blocks (i, j) see rows 2i..2i+1 whatever j; saved at
    // rows 2i.., column j of R[4, 3].
    Tensor r = runKernel({4, 1}, Tensor({4, 1}, {1, 2, 3, 4}), config({2, 3, 1}, 1), [](Body& b) {
      b.save(b.accum(b.tile(0, map({{X, 0}}))), 0, map({{X, 0}, {Y, 1}}));
    });
    checkValues(r, {4, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  }
}

TEST_CASE("three grid dims, permuted between imap and omap", "[interp][kernel]") {
  // A[2, 4, 6], grid [2, 2, 3], imap {x:0, y:1, z:2}: block (bx, by, bz) sees
  // the [1, 2, 2] tile at (bx, 2by, 2bz). omap {x:2, y:0, z:1} writes it at
  // (by, 2bz, 2bx) of R[2, 6, 4].
  Tensor a = iota({2, 4, 6});
  Tensor r = runKernel({2, 4, 6}, a, config({2, 2, 3}, 1), [](Body& b) {
    ValueId t = b.tile(0, map({{X, 0}, {Y, 1}, {Z, 2}}));
    b.save(b.accum(t), 0, map({{X, 2}, {Y, 0}, {Z, 1}}));
  });
  REQUIRE(r.shape == Shape{2, 6, 4});
  for (int64_t bx = 0; bx < 2; ++bx)
    for (int64_t by = 0; by < 2; ++by)
      for (int64_t bz = 0; bz < 3; ++bz)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 2; ++j) {
            // tile element [0, i, j]
            float want = a.at({bx, 2 * by + i, 2 * bz + j});
            CHECK(r.at({by + 0, 2 * bz + i, 2 * bx + j}) == want);
          }
}

TEST_CASE("fmap: iteration i sees part i, accum sums", "[interp][kernel]") {
  // A = [[1..6], [7..12]]; forloop 3 splits dim 1 into parts of 2:
  // R[r, c] = A[r, c] + A[r, c+2] + A[r, c+4].
  Tensor r = runKernel({2, 6}, iota({2, 6}, 1), config({1, 1, 1}, 3), [](Body& b) {
    b.save(b.accum(b.tile(0, ir::kEmptyMap, 1)), 0, ir::kEmptyMap);
  });
  checkValues(r, {2, 2}, {9, 12, 27, 30});
}

TEST_CASE("accum with op=max keeps the maximum", "[interp][kernel]") {
  Tensor a({2, 6}, {5, 1, 2, 8, 3, 0, -1, -2, -3, -4, -5, -6});
  Tensor r = runKernel({2, 6}, a, config({1, 1, 1}, 3), [](Body& b) {
    b.save(b.accum(b.tile(0, ir::kEmptyMap, 1), ir::AccumOp::Max), 0, ir::kEmptyMap);
  });
  checkValues(r, {2, 2}, {5, 8, -1, -2});
}

TEST_CASE("a tile without fmap is the same every iteration", "[interp][kernel]") {
  Tensor r = runKernel({3}, Tensor({3}, {1, -2, 0.5f}), config({1, 1, 1}, 4), [](Body& b) {
    b.save(b.accum(b.tile(0, ir::kEmptyMap)), 0, ir::kEmptyMap);
  });
  checkValues(r, {3}, {4, -8, 2});
}

TEST_CASE("imap and fmap together", "[interp][kernel]") {
  // A[4, 6], grid [2] splits rows, forloop 3 splits each block's columns:
  // R[r, c] = A[r, c] + A[r, c+2] + A[r, c+4] again, assembled from 2 blocks.
  Tensor a = iota({4, 6});
  Tensor r = runKernel({4, 6}, a, config({2, 1, 1}, 3), [](Body& b) {
    ValueId t = b.tile(0, map({{X, 0}}), 1);
    b.save(b.accum(t), 0, map({{X, 0}}));
  });
  REQUIRE(r.shape == Shape{4, 2});
  for (int64_t row = 0; row < 4; ++row)
    for (int64_t c = 0; c < 2; ++c)
      CHECK(r.at({row, c}) == a.at({row, c}) + a.at({row, c + 2}) + a.at({row, c + 4}));
}

TEST_CASE("fmap on the imap-split dim splits the block's chunk", "[interp][kernel]") {
  // A[8], grid [2], forloop 2, imap {x:0}, fmap 0: block i sees A[4i..4i+3],
  // iteration j its part A[4i+2j .. 4i+2j+1].
  Tensor r = runKernel({8}, iota({8}), config({2, 1, 1}, 2), [](Body& b) {
    b.save(b.accum(b.tile(0, map({{X, 0}}), 0)), 0, map({{X, 0}}));
  });
  checkValues(r, {4}, {0 + 2, 1 + 3, 4 + 6, 5 + 7});
}

TEST_CASE("in-loop operations run every iteration, after-loop ones once", "[interp][kernel]") {
  // A = [[1, 2, 3, 4], [-1, 5, 0, 2]], forloop 2 over dim 1 (parts of 2).
  // In the loop: e = square(t) (per iteration). After it: s = accum(e),
  // m = accum(t, max), y = s / m * 2, then reduce_sum(y, dim=1).
  //   row 0: s = [1+9, 4+16] = [10, 20], m = [3, 4], y = [20/3, 10], sum = 50/3
  //   row 1: s = [1+0, 25+4] = [1, 29],   m = [0, 5], y = [inf, 11.6], sum = inf
  Tensor a({2, 4}, {1, 2, 3, 4, -1, 5, 0, 2});
  Tensor r = runKernel({2, 4}, a, config({1, 1, 1}, 2), [](Body& b) {
    ValueId t = b.tile(0, ir::kEmptyMap, 1);
    ValueId s = b.accum(b.apply(op(OpKind::Square, {t})));
    ValueId m = b.accum(t, ir::AccumOp::Max);
    ValueId two = constant(*b.graph, "2");
    ValueId y = b.apply(op(OpKind::Mul, {b.apply(op(OpKind::Div, {s, m})), two}));
    ir::Op sum = op(OpKind::ReduceSum, {y});
    sum.dim = 1;
    b.save(b.apply(sum), 0, ir::kEmptyMap);
  });
  REQUIRE(r.shape == Shape{2, 1});
  CHECK(r.data[0] == Approx(50.0 / 3));
  CHECK(std::isinf(r.data[1]));
}

TEST_CASE("tiles stay f32 inside a body, the saved result is rounded", "[interp][kernel][rounding]") {
  // f16 program, A = [1]: in the body x + 0.0001 - 1 is 1.0001e-4 in f32; were
  // the intermediate rounded to f16, 1 + 0.0001 would be 1 and the result 0.
  Tensor r = runKernel(
      {1}, Tensor({1}, {1}), config({1, 1, 1}, 1),
      [](Body& b) {
        ValueId t = b.tile(0, ir::kEmptyMap);
        ValueId s = b.accum(b.apply(op(OpKind::Add, {t, constant(*b.graph, "0.0001")})));
        b.save(b.apply(op(OpKind::Sub, {s, constant(*b.graph, "1")})), 0, ir::kEmptyMap);
      },
      ir::DType::F16);
  float expect = interp::roundToDType((1.0f + 0.0001f) - 1.0f, ir::DType::F16);
  CHECK(expect > 0);
  CHECK(r.data[0] == expect);
}

TEST_CASE("flash-decoding μGraph equals softmax attention", "[interp][kernel]") {
  // A small copy of examples/gqa_flash.mg: Q[2,4,8], K[2,8,16], V[2,16,8],
  // kernel 1 grid [2,2,2] forloop 2, kernel 2 grid [2,2]; in f32 it must
  // match softmax(Q·K)·V to rounding error.
  auto inputs = [](ir::Graph& g) {
    return std::array<ValueId, 3>{input(g, "Q", {2, 4, 8}), input(g, "K", {2, 8, 16}),
                                  input(g, "V", {2, 16, 8})};
  };
  ir::Graph ref;
  ref.name = "gqa";
  ref.dtype = ir::DType::F32;
  auto [q, k, v] = inputs(ref);
  ValueId s = binary(ref, OpKind::Matmul, q, k);
  ValueId e = unary(ref, OpKind::Exp, binary(ref, OpKind::Sub, s, reduce(ref, OpKind::ReduceMax, s, -1)));
  ValueId p = binary(ref, OpKind::Div, e, reduce(ref, OpKind::ReduceSum, e, -1));
  ref.outputs = {binary(ref, OpKind::Matmul, p, v)};

  ir::Graph flash;
  flash.name = "gqa_flash";
  flash.dtype = ir::DType::F32;
  auto [fq, fk, fv] = inputs(flash);
  Body k1(flash, {fq, fk, fv}, config({2, 2, 2}, 2));
  {
    ValueId tq = k1.tile(0, map({{X, 0}, {Y, 1}}));
    ValueId tk = k1.tile(1, map({{X, 0}, {Z, 2}}), 2);
    ValueId tv = k1.tile(2, map({{X, 0}, {Z, 1}}), 1);
    ValueId te = k1.apply(op(OpKind::Exp, {k1.apply(op(OpKind::Matmul, {tq, tk}))}));
    ValueId n = k1.accum(k1.apply(op(OpKind::Matmul, {te, tv})));
    ir::Op rs = op(OpKind::ReduceSum, {te});
    rs.dim = 2;
    ValueId d = k1.accum(k1.apply(rs));
    k1.save(n, 0, map({{X, 0}, {Y, 1}, {Z, 2}}));
    k1.save(d, 1, map({{X, 0}, {Y, 1}, {Z, 2}}));
  }
  std::vector<ValueId> nd = kernel(flash, {fq, fk, fv}, k1, {"N", "D"});
  REQUIRE(flash.value(nd[0]).shape == Shape{2, 4, 16});
  REQUIRE(flash.value(nd[1]).shape == Shape{2, 4, 2});
  Body k2(flash, nd, config({2, 2, 1}, 1));
  {
    ValueId np = k2.tile(0, map({{X, 0}, {Y, 1}}));
    ValueId dp = k2.tile(1, map({{X, 0}, {Y, 1}}));
    ir::Op rn = op(OpKind::ReduceSum, {np});
    rn.dim = 2;
    rn.size = 8;
    ir::Op rd = op(OpKind::ReduceSum, {dp});
    rd.dim = 2;
    ValueId num = k2.accum(k2.apply(rn));
    ValueId den = k2.accum(k2.apply(rd));
    k2.save(k2.apply(op(OpKind::Div, {num, den})), 0, map({{X, 0}, {Y, 1}}));
  }
  flash.outputs = kernel(flash, nd, k2, {"O"});

  std::vector<Tensor> in = {interp::randomTensor({2, 4, 8}, ir::DType::F32, 7, "Q"),
                            interp::randomTensor({2, 8, 16}, ir::DType::F32, 7, "K"),
                            interp::randomTensor({2, 16, 8}, ir::DType::F32, 7, "V")};
  Tensor want = interp::evaluate(ref, in)[0];
  Tensor got = interp::evaluate(flash, in)[0];
  REQUIRE(got.shape == want.shape);
  for (size_t i = 0; i < want.data.size(); ++i) CHECK(got.data[i] == Approx(want.data[i]).epsilon(1e-5));
}
