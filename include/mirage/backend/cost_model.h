// The analytical cost model: predicted run time of a program (an ir::Graph at
// program level) on one architecture, without a GPU. Each program-level
// operator is one kernel launch (a pre-defined operator is costed as the one
// kernel codegen's lowering makes of it, codegen/lower.h; a Kernel op is its
// grid of blocks running its body). Per kernel the
// model counts the bytes it moves through device memory and L2, its
// tensor-core and CUDA-core FLOPs and its shared-memory traffic, estimates
// occupancy from threads, registers and shared memory, places its blocks in
// waves over the SMs, and adds memory latency per for-loop iteration and the
// launch overhead. docs/cost-model.md gives every formula.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mirage/backend/arch.h"
#include "mirage/codegen/cuda.h"
#include "mirage/ir/graph.h"

namespace mirage::backend {

struct KernelCost {
  int op = -1;        // index of the operator in Graph::ops
  std::string label;  // "kernel" or the pre-defined operator's name
  // Launch shape.
  int64_t blocks = 0;
  int64_t threadsPerBlock = 0;
  int64_t smemBytesPerBlock = 0;
  int64_t regsPerThread = 0;
  int64_t blocksPerSM = 0;  // resident blocks per SM (occupancy)
  int64_t waves = 0;        // rounds of resident blocks on the busiest SM
  // Work.
  double dramBytes = 0;    // unique bytes read + written in device memory
  double loadBytes = 0;    // bytes all blocks load/store (replicated tiles counted per block)
  double smemBytes = 0;    // shared-memory reads + writes of all blocks
  double tensorFlops = 0;  // matmul FLOPs on tensor cores (f16/bf16)
  double cudaFlops = 0;    // everything else (and f32 matmuls), in FMA-equivalent FLOPs
  // Time, microseconds. total = launch + max(memory, compute, shared) + latency.
  double memoryUs = 0;
  double computeUs = 0;
  double sharedUs = 0;
  double latencyUs = 0;
  double launchUs = 0;
  double totalUs = 0;
  std::string bound;  // the largest term: "memory", "compute", "shared", "latency" or "launch"
};

struct CostEstimate {
  std::string arch;  // ArchSpec::name
  double totalUs = 0;
  std::vector<KernelCost> kernels;  // in launch order
};

struct CostOptions {
  // Threads per block assumed when a Kernel leaves `block` open and for
  // pre-defined operators: the code generator's default.
  int64_t defaultThreads = codegen::Options{}.defaultThreads;
};

// A program with a pre-defined operator the generator cannot lower (not a
// legal program) costs infinity, without a KernelCost for that operator.
CostEstimate estimateCost(const ir::Graph& program, const ArchSpec& arch,
                          const CostOptions& options = {});

// Lower bounds, for the search's branch and bound (docs/search.md, "Bounds").
// What any kernel with at least this work costs at least: the work of a
// partial kernel (its tiles so far, what it must save) at one choice of
// grid and for-loop extents. Every completion of that kernel at those
// extents loads at least these tiles, saves at least these bytes, uses at
// least this shared memory and at least the fewest registers a kernel gets,
// so each of the model's terms (memory, shared, latency, occupancy and
// waves) is at least what the floor gives: kernelFloorUs is the model's own
// time formula applied to that work, not a second model.
struct KernelFloor {
  int64_t blocks = 1;
  int64_t forloop = 1;
  double dramBytes = 0;       // device-memory bytes read and written, whole kernel
  double blockLoadBytes = 0;  // bytes one block loads and stores
  double blockSmemBytes = 0;  // shared-memory traffic of one block
  int64_t smemPerBlock = 0;   // shared memory one block holds
  // Operator work of one block: matmul FLOPs (on tensor cores when the
  // dtype allows them: the faster rate bounds either), and elements per
  // operator kind, costed at the model's FLOPs per element.
  double blockMatmulFlops = 0;
  bool tensorCores = false;
  std::vector<std::pair<ir::OpKind, double>> blockElements;
};
double kernelFloorUs(const KernelFloor& floor, const ArchSpec& arch, const CostOptions& options = {});

// `launches` kernels that together move at least `dramBytes` through device
// memory, whatever their shapes: each costs at least the launch overhead
// plus one round trip to memory for its loads and one for its stores, and
// one of them (where `loopSteps` > 1) one more round trip per for-loop step
// past the first (a kernel that walks the partials of a split reduction
// has exactly as many steps as the blocks that wrote them).
double launchesFloorUs(int launches, double dramBytes, const ArchSpec& arch, int64_t loopSteps = 1);

// The estimate as JSON for --report: {"arch", "predicted_us", "kernels": [{...}]},
// each kernel with its launch shape, work and time parts.
nlohmann::json costToJson(const CostEstimate& estimate);

}  // namespace mirage::backend
