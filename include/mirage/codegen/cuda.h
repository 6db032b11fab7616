// The codegen component lowers a legal μGraph (ir::Graph) to one
// self-contained CUDA source file as ../shared/spec/cli.md defines it:
// header comment, one __global__ function per distinct kernel (launches of
// the same code share it; a pre-defined operator is lowered as the custom
// kernel that computes it), device helpers
// emitted inline, and the C-linkage entry points mirage_NAME and
// mirage_NAME_workspace_bytes. It also runs such a file without a GPU
// (codegen/host_runner.h): compiled for the host against an emulation shim.
//
// This header is the API the driver calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::codegen {

struct Options {
  int smArch = 90;               // target compute capability (80, 86, 89, 90, ...)
  std::string sourceName;        // the input file, for the header comment
  // Tensor cores, 128-bit / cp.async loads, warp-shuffle reductions and
  // register accumulators where shapes allow; false forces the simple path
  // for every construct (tests compare the two).
  bool fastPaths = true;
  int defaultThreads = 128;      // threads per block where the μGraph leaves it open
  // Opt-in Hopper path (smArch >= 90, with fastPaths): the for-loop tiles
  // that are otherwise double-buffered with cp.async are filled by TMA bulk
  // copies (cp.async.bulk, one thread, one mbarrier per stage) in a 3- or
  // 4-stage pipeline as deep as sharedMemoryLimit allows. The file keeps an
  // sm_80 branch (the same stages filled by cp.async) under
  // __CUDA_ARCH__ < 900, so it still compiles and runs on Ampere. Off by
  // default: it has been checked against the host shim's emulation and
  // compilers only, not timed on a GPU. docs/codegen.md, "Hopper".
  bool hopperPaths = false;
};

struct KernelSummary {
  std::string function;          // the __global__ function's name
  int64_t grid[3] = {1, 1, 1};
  int threads = 0;
  int64_t sharedBytes = 0;       // dynamic shared memory per block
  std::vector<std::string> fastPaths;  // which fast paths its code uses
};

struct Result {
  bool ok = false;
  std::string error;           // why the μGraph cannot be lowered (e.g. shared memory)
  std::string source;          // the .cu text
  int64_t workspaceBytes = 0;  // what mirage_NAME_workspace_bytes returns
  std::string entryName;       // "mirage_NAME"
  std::vector<KernelSummary> kernels;  // one per launch, in launch order
  int functions = 0;           // distinct __global__ functions (what NVRTC compiles)
};

Result generateCuda(const ir::Graph& program, const Options& options);

}  // namespace mirage::codegen
