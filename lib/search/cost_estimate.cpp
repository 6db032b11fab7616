// The search's own ranking when no cost model is plugged in: per kernel
// launch, a launch overhead plus the larger of memory time and compute time,
// both scaled down when the grid has fewer blocks than the GPU has SMs.
// Figures are an H100-SXM's (docs/search.md, "Ranking").
#include <algorithm>
#include <cmath>

#include "mirage/ir/check.h"
#include "mirage/ir/layout.h"
#include "mirage/search/search.h"

namespace mirage::search {
namespace {

constexpr double kLaunchUs = 2.0;
constexpr double kDramBytesPerUs = 3.35e6;   // 3.35 TB/s
constexpr double kL2BytesPerUs = 10.0e6;     // replicated tile loads mostly hit L2
constexpr double kTensorFlopsPerUs = 495e6;  // half the dense f16 peak: what mma.sync reaches
constexpr double kCudaFlopsPerUs = 33e6;
constexpr double kSMs = 132;
constexpr double kIterationUs = 0.05;  // per for-loop step: a pipelined tile load

double matmulFlops(const ir::Shape& a, const ir::Shape& out) {
  return 2.0 * static_cast<double>(ir::numElements(out)) * static_cast<double>(a.back());
}

double kernelUs(double dramBytes, double l2Bytes, double tensorFlops, double cudaFlops, double blocks,
                double iterations) {
  double parallel = std::min(1.0, blocks / kSMs);
  double memory = (dramBytes / kDramBytesPerUs + l2Bytes / kL2BytesPerUs) / parallel;
  double compute = (tensorFlops / kTensorFlopsPerUs + cudaFlops / kCudaFlopsPerUs) / parallel;
  return kLaunchUs + std::max(memory, compute) + kIterationUs * iterations;
}

}  // namespace

double estimateCostUs(const ir::Graph& g) {
  double bytesPer = ir::dtypeBytes(g.dtype);
  double total = 0;
  for (const ir::Op& op : g.ops) {
    if (op.kind == ir::OpKind::Input || op.kind == ir::OpKind::Const) continue;
    // A reshape, or a slice read in place, is a view (codegen): free.
    if (ir::isLayoutOp(op.kind) && ir::isLayoutView(g, op)) continue;
    if (ir::isLayoutOp(op.kind)) {
      // A copy kernel: the result's elements read once and written once.
      double elements = static_cast<double>(ir::numElements(g.value(op.results[0]).shape));
      total += kernelUs(2 * elements * bytesPer, 0, 0, 0, std::ceil(elements / 128), 1);
      continue;
    }
    double dram = 0;
    for (ir::ValueId v : op.inputs)
      if (g.producer(v).kind != ir::OpKind::Const) dram += static_cast<double>(ir::numElements(g.value(v).shape)) * bytesPer;
    for (ir::ValueId v : op.results) dram += static_cast<double>(ir::numElements(g.value(v).shape)) * bytesPer;
    if (op.kind != ir::OpKind::Kernel) {
      // A pre-defined operator runs as one kernel over its output.
      double elements = static_cast<double>(ir::numElements(g.value(op.results[0]).shape));
      double tensor = op.kind == ir::OpKind::Matmul ? matmulFlops(g.value(op.inputs[0]).shape, g.value(op.results[0]).shape) : 0;
      double cuda = op.kind == ir::OpKind::Matmul ? 0 : static_cast<double>(ir::numElements(g.value(op.inputs[0]).shape));
      total += kernelUs(dram, 0, tensor, cuda, std::ceil(elements / 1024), 1);
      continue;
    }
    const ir::Graph& body = *op.body;
    const ir::KernelConfig& k = op.config;
    double blocks = static_cast<double>(k.grid[0] * k.grid[1] * k.grid[2]);
    double iterations = static_cast<double>(k.forloop);
    double loaded = 0, tensor = 0, cuda = 0;
    for (const ir::Op& b : body.ops) {
      if (b.kind == ir::OpKind::Input || b.kind == ir::OpKind::Const || b.kind == ir::OpKind::Save) continue;
      ir::ValueId r = b.results[0];
      bool after = ir::isAfterLoop(body, r);
      double times = after ? 1 : iterations;
      double elements = static_cast<double>(ir::numElements(body.value(r).shape));
      if (b.kind == ir::OpKind::Tile) {
        loaded += elements * bytesPer * (b.fmap >= 0 ? iterations : 1);
      } else if (b.kind == ir::OpKind::Matmul) {
        tensor += matmulFlops(body.value(b.inputs[0]).shape, body.value(r).shape) * times;
      } else {
        double in = static_cast<double>(ir::numElements(body.value(b.inputs[0]).shape));
        cuda += std::max(in, elements) * times;
      }
    }
    loaded *= blocks;
    double replicated = std::max(0.0, loaded - dram);
    total += kernelUs(dram, replicated, tensor * blocks, cuda * blocks, blocks, iterations);
  }
  return total;
}

// kernelUs with only the floor's device-memory bytes: the replicated
// loads, the compute and the parallel factor (at most 1) only add.
double estimateKernelFloorUs(const KernelFloor& floor) {
  double parallel = std::min(1.0, static_cast<double>(std::max<int64_t>(1, floor.blocks)) / kSMs);
  return kLaunchUs + floor.dramBytes / kDramBytesPerUs / parallel +
         kIterationUs * static_cast<double>(std::max<int64_t>(1, floor.forloop));
}

double estimateLaunchesFloorUs(int launches, double dramBytes, int64_t loopSteps) {
  if (launches <= 0) return 0;
  // One step each, and the steps past the first of the launch with a loop.
  const double steps = static_cast<double>(launches) + static_cast<double>(std::max<int64_t>(1, loopSteps) - 1);
  return launches * kLaunchUs + steps * kIterationUs + dramBytes / kDramBytesPerUs;
}

}  // namespace mirage::search
