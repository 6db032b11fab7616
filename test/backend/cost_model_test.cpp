// The cost model: monotonic in bytes and blocks, figures for kernels computed
// by hand (docs/cost-model.md walks through the first one).
#include <catch2/catch.hpp>

#include <memory>

#include "mirage/backend/cost_model.h"
#include "mirage/ir/check.h"

using namespace mirage;
using namespace mirage::backend;
using ir::OpKind;
using ir::ValueId;

namespace {

ValueId input(ir::Graph& g, const std::string& name, const ir::Shape& shape) {
  ValueId v = ir::kNoValue;
  ir::Error e = ir::addInput(g, name, shape, &v);
  INFO(e);
  REQUIRE(e.empty());
  return v;
}

ValueId apply(ir::Graph& g, OpKind kind, std::vector<ValueId> inputs,
              const ir::KernelConfig* kernel = nullptr, int dim = 0) {
  ir::Op op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.dim = dim;
  ValueId v = ir::kNoValue;
  ir::Error e = ir::addOp(g, std::move(op), kernel, &v);
  INFO(e);
  REQUIRE(e.empty());
  return v;
}

// Y = kernel(X) grid=[blocks] forloop=F: each block tiles rows of X (split
// over the loop along columns), takes exp, accumulates, and saves its rows.
ir::Graph expKernel(int64_t rows, int64_t cols, int64_t blocks, int64_t forloop) {
  ir::Graph g;
  g.name = "exp_kernel";
  ValueId x = input(g, "X", {rows, cols});
  auto body = std::make_shared<ir::Graph>();
  ir::Op in;
  in.kind = OpKind::Input;
  int index = body->appendOp(std::move(in), {g.value(x).shape}, {"X"});
  body->inputs.push_back(body->ops[static_cast<size_t>(index)].results[0]);
  ir::KernelConfig cfg;
  cfg.grid = {blocks, 1, 1};
  cfg.forloop = forloop;
  ir::Op tile;
  tile.kind = OpKind::Tile;
  tile.inputs = {body->inputs[0]};
  tile.imap = {0, -1, -1};
  tile.fmap = forloop > 1 ? 1 : -1;
  ValueId t = ir::kNoValue;
  REQUIRE(ir::addOp(*body, tile, &cfg, &t).empty());
  ValueId e = apply(*body, OpKind::Exp, {t}, &cfg);
  ValueId a = apply(*body, OpKind::Accum, {e}, &cfg);
  ir::Op save;
  save.kind = OpKind::Save;
  save.inputs = {a};
  save.omap = {0, -1, -1};
  ValueId none = ir::kNoValue;
  REQUIRE(ir::addOp(*body, save, &cfg, &none).empty());
  ir::Op k;
  k.kind = OpKind::Kernel;
  k.inputs = {x};
  k.config = cfg;
  k.body = body;
  std::vector<ValueId> results;
  ir::Error err = ir::addKernel(g, std::move(k), 1, {"Y"}, &results);
  INFO(err);
  REQUIRE(err.empty());
  g.outputs = results;
  return g;
}

ir::Graph elementwise(int64_t n) {
  ir::Graph g;
  ValueId a = input(g, "A", {n});
  ValueId b = input(g, "B", {n});
  g.outputs = {apply(g, OpKind::Add, {a, b})};
  return g;
}

}  // namespace

TEST_CASE("a hand-computed kernel on H100") {
  // X f16[1024, 1024], 128 blocks of 8 rows (16 KiB tiles), forloop 1.
  CostEstimate e = estimateCost(expKernel(1024, 1024, 128, 1), h100Spec());
  REQUIRE(e.kernels.size() == 1);
  const KernelCost& k = e.kernels[0];
  CHECK(k.label == "kernel");
  CHECK(k.blocks == 128);
  CHECK(k.threadsPerBlock == 128);
  CHECK(k.smemBytesPerBlock == 32768);  // the tile and exp's result
  CHECK(k.regsPerThread == 40 + 64);    // 8192 f32 accumulator elements over 128 threads
  CHECK(k.blocksPerSM == 4);            // registers: 65536 / (104 * 128)
  CHECK(k.waves == 1);
  CHECK(k.dramBytes == 4194304);        // X read once, Y written once
  CHECK(k.loadBytes == 4194304);
  CHECK(k.smemBytes == Approx(128.0 * 49152));
  CHECK(k.cudaFlops == Approx(128.0 * (8192 * 4 + 8192)));
  CHECK(k.tensorFlops == 0);
  // memory: max(DRAM 4 MiB / 3.35 TB/s, L2, one block on one SM at half rate)
  CHECK(k.memoryUs == Approx(4194304.0 / 3.35e6));
  CHECK(k.computeUs == Approx(40960.0 / (67e6 / 132 * 0.5)));
  CHECK(k.sharedUs == Approx(49152.0 / (128 * 1.98e3 * 0.5)));
  CHECK(k.latencyUs == Approx(2 * 0.6));
  CHECK(k.launchUs == 2.0);
  CHECK(k.totalUs == Approx(2.0 + 4194304.0 / 3.35e6));
  CHECK(k.bound == "launch");  // 4 MiB move in less time than a launch takes
  CHECK(e.totalUs == Approx(k.totalUs));
}

TEST_CASE("a pre-defined matmul is one tensor-core kernel, lowered as the generator does") {
  ir::Graph g;
  ValueId x = input(g, "X", {16, 4096});
  ValueId w = input(g, "W", {4096, 6144});
  g.outputs = {apply(g, OpKind::Matmul, {x, w})};
  CostEstimate e = estimateCost(g, h200Spec());
  REQUIRE(e.kernels.size() == 1);
  const KernelCost& k = e.kernels[0];
  CHECK(k.label == "matmul");
  CHECK(k.blocks == 96);
  CHECK(k.tensorFlops == Approx(2.0 * 16 * 6144 * 4096));
  CHECK(k.dramBytes == Approx(2.0 * (16 * 4096 + 4096 * 6144 + 16 * 6144)));
  CHECK(k.memoryUs >= k.dramBytes / 4.8e6);
  // 16x64 output tiles and k in 64 steps of 64: a chain of 65 dependent
  // memory round trips per block dominates.
  CHECK(k.latencyUs == Approx(65 * 0.6));
  CHECK(k.bound == "latency");
}

TEST_CASE("more bytes take more time") {
  double previous = 0;
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 24, int64_t{1} << 26}) {
    CostEstimate e = estimateCost(elementwise(n), h100Spec());
    REQUIRE(e.kernels.size() == 1);
    CHECK(e.kernels[0].dramBytes == Approx(3.0 * 2 * n));
    CHECK(e.totalUs > previous);
    previous = e.totalUs;
  }
  // The same kernel with wider rows moves more and takes longer.
  CHECK(estimateCost(expKernel(1024, 2048, 128, 2), h100Spec()).totalUs >
        estimateCost(expKernel(1024, 1024, 128, 2), h100Spec()).totalUs);
  // Large transfers approach the bandwidth bound.
  CostEstimate big = estimateCost(elementwise(int64_t{1} << 26), h100Spec());
  CHECK(big.kernels[0].bound == "memory");
  CHECK(big.totalUs == Approx(2.0 + 3.0 * 2 * (1 << 26) / 3.35e6));
}

TEST_CASE("more blocks than the SMs hold run in more waves") {
  // 2 rows x 4096 cols per block: registers allow 4 blocks per SM, so 132
  // SMs hold 528 blocks in one wave.
  auto cost = [](int64_t blocks) {
    CostEstimate e = estimateCost(expKernel(2 * blocks, 4096, blocks, 1), h100Spec());
    return e.kernels.at(0);
  };
  KernelCost oneWave = cost(132 * 4);
  CHECK(oneWave.blocksPerSM == 4);
  CHECK(oneWave.waves == 1);
  KernelCost twoWaves = cost(132 * 4 + 1);
  CHECK(twoWaves.waves == 2);
  KernelCost threeWaves = cost(132 * 8 + 1);
  CHECK(threeWaves.waves == 3);
  // Each wave costs at least a round of memory latency; per-SM work grows with it.
  CHECK(twoWaves.latencyUs > oneWave.latencyUs);
  CHECK(twoWaves.totalUs > oneWave.totalUs);
  CHECK(threeWaves.totalUs > twoWaves.totalUs);
  // Fewer blocks than SMs: one wave.
  CHECK(cost(100).waves == 1);
}

TEST_CASE("fewer blocks than SMs leave bandwidth unused") {
  // The same 4 MiB moved by 8 blocks instead of 128: the busiest SM does
  // 16 times the work at the same per-SM rate.
  KernelCost wide = estimateCost(expKernel(1024, 1024, 128, 8), h100Spec()).kernels.at(0);
  KernelCost narrow = estimateCost(expKernel(1024, 1024, 8, 8), h100Spec()).kernels.at(0);
  CHECK(narrow.dramBytes == wide.dramBytes);
  CHECK(narrow.memoryUs > 4 * wide.memoryUs);
}

TEST_CASE("every launch pays the launch overhead") {
  ir::Graph g;
  ValueId a = input(g, "A", {256});
  ValueId b = apply(g, OpKind::Exp, {a});
  ValueId c = apply(g, OpKind::Exp, {b});
  g.outputs = {apply(g, OpKind::ReduceSum, {c}, nullptr, 0)};
  CostEstimate e = estimateCost(g, a100Spec());
  REQUIRE(e.kernels.size() == 3);
  CHECK(e.kernels[2].label == "reduce_sum");
  for (const KernelCost& k : e.kernels) CHECK(k.launchUs == 2.5);
  CHECK(e.totalUs >= 3 * 2.5);
  CHECK(e.kernels[0].op == 1);  // ops[0] is the input
}

TEST_CASE("a memory-bound program is faster on H200 than on H100 and A100") {
  ir::Graph g = elementwise(int64_t{1} << 24);
  const double a100 = estimateCost(g, a100Spec()).totalUs;
  const double h100 = estimateCost(g, h100Spec()).totalUs;
  const double h200 = estimateCost(g, h200Spec()).totalUs;
  CHECK(h200 < h100);
  CHECK(h100 < a100);
}

TEST_CASE("the estimate as JSON for the report") {
  nlohmann::json j = costToJson(estimateCost(expKernel(1024, 1024, 128, 1), h100Spec()));
  CHECK(j["arch"] == "H100-SXM5-80GB");
  CHECK(j["predicted_us"].get<double>() > 0);
  REQUIRE(j["kernels"].size() == 1);
  const nlohmann::json& k = j["kernels"][0];
  for (const char* key : {"blocks", "waves", "blocks_per_sm", "memory_us", "compute_us", "shared_us",
                          "latency_us", "launch_us", "total_us", "bound", "dram_bytes"})
    CHECK(k.contains(key));
}

TEST_CASE("matmuls off the tensor-core fragment grid run on CUDA cores") {
  auto matmul = [](int64_t m, int64_t k, int64_t n, ir::DType dtype) {
    ir::Graph g;
    g.dtype = dtype;
    ValueId a = input(g, "A", {m, k});
    ValueId b = input(g, "B", {k, n});
    g.outputs = {apply(g, OpKind::Matmul, {a, b})};
    return estimateCost(g, h100Spec()).kernels.at(0);
  };
  KernelCost aligned = matmul(64, 64, 64, ir::DType::F16);
  CHECK(aligned.tensorFlops == Approx(2.0 * 64 * 64 * 64));
  CHECK(aligned.cudaFlops == 0);
  KernelCost odd = matmul(64, 64, 60, ir::DType::F16);  // n = 60: no 8-column fragments
  CHECK(odd.tensorFlops == 0);
  CHECK(odd.cudaFlops == Approx(2.0 * 64 * 64 * 60));
  // Any m runs on tensor cores (decode shapes): rows up to the next 16 are
  // computed and dropped.
  KernelCost decode = matmul(8, 64, 64, ir::DType::F16);
  CHECK(decode.cudaFlops == 0);
  CHECK(decode.tensorFlops == Approx(2.0 * 16 * 64 * 64));
  KernelCost f32 = matmul(64, 64, 64, ir::DType::F32);
  CHECK(f32.tensorFlops == 0);
  CHECK(f32.computeUs > aligned.computeUs);
}

// The launch shapes of lib/codegen/lower.cpp for pre-defined operators.
TEST_CASE("pre-defined operators are costed with the generator's launch shapes") {
  SECTION("element-wise: at most 1024 outputs per block, leading dims split first") {
    ir::Graph g;
    ValueId x = input(g, "X", {16, 4096});
    g.outputs = {apply(g, OpKind::Exp, {x})};
    KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
    CHECK(k.blocks == 64);  // 16 rows, then 4096 columns in 4 parts of 1024
    CHECK(k.smemBytesPerBlock == 1024 * 2 * 2);  // operand and result tiles
  }
  SECTION("a reduction to few outputs gets one block per output row") {
    ir::Graph g;
    ValueId x = input(g, "X", {16, 4096});
    g.outputs = {apply(g, OpKind::ReduceSum, {x}, nullptr, 1)};
    KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
    CHECK(k.blocks == 16);
    CHECK(k.latencyUs == Approx(2 * 0.6));  // the whole row in one iteration, then the store
  }
  SECTION("a reduction to many outputs aims at 128 blocks, the loop walks the reduced dim") {
    ir::Graph g;
    ValueId x = input(g, "X", {4096, 8192});
    g.outputs = {apply(g, OpKind::ReduceSum, {x}, nullptr, 1)};
    KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
    CHECK(k.blocks == 128);  // 32 rows per block
    // 32 rows x 128 columns = 4096 input elements per iteration: 64 iterations.
    CHECK(k.latencyUs == Approx(65 * 0.6));
  }
  SECTION("a reduction never puts more than 512 outputs in a block") {
    ir::Graph g;
    ValueId x = input(g, "X", {131072, 64});
    g.outputs = {apply(g, OpKind::ReduceMax, {x}, nullptr, 1)};
    KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
    CHECK(k.blocks == 256);  // 131072 / 128 = 1024 outputs would exceed 512
  }
}

TEST_CASE("a matmul with two batch dims is costed as codegen lowers it") {
  // The lowering splits only the larger batch dim over the grid (z); each
  // block's tiles hold the whole other one. 64x64 output tiles and k = 64 in
  // one step, so 4 blocks (not 2 * 4), each staging A and B tiles of
  // 2x64x64 f16 and an f32 accumulator of its 2x64x64 outputs.
  ir::Graph g;
  ValueId a = input(g, "A", {2, 4, 64, 64});
  ValueId b = input(g, "B", {2, 4, 64, 64});
  g.outputs = {apply(g, OpKind::Matmul, {a, b})};
  KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
  CHECK(k.blocks == 4);
  CHECK(k.smemBytesPerBlock == 2 * (2 * 64 * 64 * 2) + 2 * 64 * 64 * 4);
  CHECK(k.latencyUs == Approx(2 * 0.6));  // one iteration, then the store
}

TEST_CASE("an element-wise operator with a scalar operand stages no tile for it") {
  // mul(X, 2): the constant is a scalar in the kernel body; X's tile and the
  // result tile are what one block holds.
  ir::Graph g;
  ValueId x = input(g, "X", {16, 4096});
  ValueId two = ir::addConst(g, "2");
  g.outputs = {apply(g, OpKind::Mul, {x, two})};
  KernelCost k = estimateCost(g, h100Spec()).kernels.at(0);
  CHECK(k.blocks == 64);
  CHECK(k.smemBytesPerBlock == 1024 * 2 * 2);
}
