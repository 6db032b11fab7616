// Text blocks that every generated .cu file carries: the includes, the
// device helpers the kernels call (conversions, element-wise functions, warp
// reductions, tensor-core and cp.async wrappers) and the launch macros. The
// inline-asm helpers are guarded by MIRAGE_HOST_SHIM so that the same file
// also builds for the host against the shim of host_shim.h.
#pragma once

#include <string>

namespace mirage::codegen {

// The preamble of a generated file: includes, macros and device helpers.
const std::string& devicePreamble();

// What a file whose kernels take the Hopper path (Options::hopperPaths)
// carries after the preamble: MG_HOPPER_PATH, the mbarrier and TMA bulk-copy
// wrappers (sm_90 asm only under __CUDA_ARCH__ >= 900) and the N-stage
// cp.async wait of the sm_80 branch. Files without that path do not carry it.
const std::string& hopperPreamble();

}  // namespace mirage::codegen
