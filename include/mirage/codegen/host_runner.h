// Running a generated .cu file without a GPU: it is compiled for the host
// with the system C++ compiler against an emulation shim (blocks run one
// after another, the threads of a block are fibers that meet at
// __syncthreads and warp exchanges; tensor-core and cp.async helpers have
// host versions with the same fragment semantics), loaded with dlopen, and
// its entry point is called on host buffers. Also the work of
// `mirage-run KERNEL.cu` (runCudaFile).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "mirage/codegen/cu_file.h"
#include "mirage/interp/run.h"
#include "mirage/interp/tensor.h"

namespace mirage::codegen {

// A generated file built for the host and loaded.
class HostModule {
 public:
  ~HostModule();
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;

  // Compiles `source` (the .cu text). On failure returns null and sets
  // `error` (with the compiler's log).
  static std::unique_ptr<HostModule> build(const std::string& source, std::string& error);

  const Signature& signature() const { return sig_; }
  int64_t workspaceBytes() const;

  // Calls mirage_NAME. Buffers hold elements in the program dtype (16-bit
  // patterns for f16/bf16, floats for f32), one per input/output in order.
  // Returns an empty string or why the run failed.
  std::string run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs) const;

  // The same on tensors: inputs are rounded to the dtype, outputs returned
  // as exact f32 values of their dtype.
  std::string run(const std::vector<interp::Tensor>& inputs, std::vector<interp::Tensor>& outputs) const;

 private:
  HostModule() = default;
  Signature sig_;
  void* handle_ = nullptr;
  void* entry_ = nullptr;
  void* workspace_ = nullptr;
};

// `mirage-run KERNEL.cu` on the CPU: inputs from .npy files or the seed,
// outputs to .npy or a summary line each, exit statuses as interp::runProgram.
int runCudaFileOnHost(const std::string& path, const interp::RunOptions& options, std::ostream& out,
                      std::ostream& err);

}  // namespace mirage::codegen
