// Emission of one custom kernel (a Kernel op's body) as one __global__
// function. Decides where every body value lives (a shared-memory tile, an
// inline expression fused into its consumer, an accumulator in shared memory
// or in tensor-core registers), plans shared memory, and writes the code.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::codegen {

struct EmitOptions {
  int smArch = 90;
  bool fastPaths = true;    // tensor cores, 128-bit/cp.async loads, warp reductions
  int defaultThreads = 128; // threads per block when the μGraph leaves it open
  bool hopperPaths = false; // TMA bulk copies + N-stage mbarrier pipeline on sm_90+ (Options::hopperPaths)
};

struct KernelCode {
  std::string error;          // non-empty: the kernel cannot be lowered (the reason)
  std::string functionName;
  std::string source;         // the __global__ function
  std::array<int64_t, 3> grid = {1, 1, 1};
  int threads = 0;
  int64_t sharedBytes = 0;    // dynamic shared memory per block
  std::vector<std::string> fastPathsUsed;  // e.g. "mma.sync", for comments and tests
  int tmaStages = 0;          // > 0: the Hopper path (TMA bulk copies) with this many stages
};

// The CUDA type of a program dtype: "__half", "__nv_bfloat16" or "float".
std::string elementTypeName(ir::DType dtype);

// Per-block shared-memory limit of a compute capability, in bytes.
int64_t sharedMemoryLimit(int smArch);

// `kernel` is a Kernel op of a program whose dtype is `dtype`; argF32[i]:
// its argument i is stored in f32 (a kernel result saved with dtype=f32).
// `argStrides`: per kernel argument, its element strides when it is a view
// that is not dense row-major (a slice of a larger tensor, cuda.cpp); empty
// (or an empty entry) for a dense argument.
KernelCode emitKernel(const ir::Op& kernel, ir::DType dtype, const std::string& functionName,
                      const EmitOptions& options, const std::vector<bool>& argF32 = {},
                      const std::vector<std::vector<int64_t>>& argStrides = {});

}  // namespace mirage::codegen
