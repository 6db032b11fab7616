// The cost model on the bundled examples: every program gets a finite
// estimate with one entry per launch, and the hand-written μGraphs rank ahead
// of the operator-by-operator programs they implement.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "mirage/backend/cost_model.h"
#include "mirage/codegen/lower.h"
#include "mirage/parse/parser.h"

using namespace mirage;
using namespace mirage::backend;

namespace {

ir::Graph example(const std::string& name) {
  std::ostringstream err;
  std::optional<ir::Graph> g = parse::parseFile(std::string(MIRAGE_EXAMPLES_DIR) + "/" + name, err);
  INFO(err.str());
  REQUIRE(g);
  return *g;
}

}  // namespace

TEST_CASE("every example gets a finite estimate per launch on every architecture") {
  for (const char* name : {"gqa.mg", "qknorm_gqa.mg", "rmsnorm_linear.mg", "lora.mg", "gated_mlp.mg",
                           "ntrans.mg", "gqa_flash.mg", "rmsnorm_linear_fused.mg"}) {
    ir::Graph g = example(name);
    for (const ArchSpec* arch : {&a100Spec(), &h100Spec(), &h200Spec()}) {
      CostEstimate e = estimateCost(g, *arch);
      INFO(name << " on " << arch->name);
      CHECK(static_cast<int>(e.kernels.size()) == ir::countKernels(g));
      CHECK(std::isfinite(e.totalUs));
      CHECK(e.totalUs >= arch->launchOverheadUs * static_cast<double>(e.kernels.size()));
      for (const KernelCost& k : e.kernels) {
        CHECK(k.blocks > 0);
        CHECK(k.waves > 0);
        CHECK(k.blocksPerSM > 0);
        CHECK(k.totalUs >= k.launchUs);
      }
    }
  }
}

TEST_CASE("fused μGraphs rank ahead of the programs they implement") {
  for (const ArchSpec* arch : {&a100Spec(), &h100Spec(), &h200Spec()}) {
    INFO(arch->name);
    CHECK(estimateCost(example("gqa_flash.mg"), *arch).totalUs <
          estimateCost(example("gqa.mg"), *arch).totalUs);
    CHECK(estimateCost(example("rmsnorm_linear_fused.mg"), *arch).totalUs <
          estimateCost(example("rmsnorm_linear.mg"), *arch).totalUs);
  }
}

TEST_CASE("the fused RMSNorm+Linear is bound by moving W, not by its launch") {
  CostEstimate e = estimateCost(example("rmsnorm_linear_fused.mg"), h200Spec());
  REQUIRE(e.kernels.size() == 1);
  const KernelCost& k = e.kernels[0];
  CHECK(k.dramBytes == Approx(2.0 * (16 * 4096 + 4096 * 6144 + 16 * 6144)));
  // Moving 51 MB at the H200's peak bandwidth takes 10.6 us; the 33
  // dependent round trips of its 32-step loop take about twice that.
  const double bound = k.dramBytes / 4.8e6;
  CHECK(k.memoryUs >= bound);
  CHECK(k.bound != "launch");
  CHECK(k.totalUs > bound);
  CHECK(k.totalUs < 2.5 * bound);
}

TEST_CASE("every launch of the examples is costed with the grid codegen emits") {
  for (const char* name : {"gqa.mg", "qknorm_gqa.mg", "rmsnorm_linear.mg", "lora.mg", "gated_mlp.mg",
                           "ntrans.mg", "gqa_flash.mg", "rmsnorm_linear_fused.mg"}) {
    INFO(name);
    ir::Graph g = example(name);
    ir::Graph lowered;
    REQUIRE(codegen::lowerToKernels(g, lowered).empty());
    std::vector<int64_t> grids;
    for (const ir::Op& op : lowered.ops)
      if (op.kind == ir::OpKind::Kernel) grids.push_back(op.config.grid[0] * op.config.grid[1] * op.config.grid[2]);
    CostEstimate e = estimateCost(g, h100Spec());
    REQUIRE(e.kernels.size() == grids.size());
    for (size_t i = 0; i < grids.size(); ++i) {
      INFO(e.kernels[i].label);
      CHECK(e.kernels[i].blocks == grids[i]);
    }
  }
}
