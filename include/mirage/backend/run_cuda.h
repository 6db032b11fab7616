// The work of `mirage-run KERNEL.cu --device cuda` (../shared/spec/cli.md):
// read the launch plan of a file written by mirage-opt, take its inputs from
// .npy files or fill them from the seed exactly as for a .mg program, open
// the GPU through the CUDA driver loaded at run time, compile the file's
// device code with NVRTC for that GPU, replay the plan's launches and copies,
// and write the outputs as .npy (or print one summary line per output).
// Without a usable GPU the run fails with "no usable GPU: ..." (exit 1);
// nothing is ever written half.
#pragma once

#include <iosfwd>
#include <string>

#include "mirage/backend/gpu.h"
#include "mirage/interp/run.h"

namespace mirage::backend {

struct CudaRunOptions {
  std::string driverLibrary = defaultDriverLibrary();
  int device = 0;  // ordinal
};

// Returns an exit status as interp::runProgram: kExitBadCommand for --in /
// --out names the file's program lacks or repeats; kExitFailed for an
// unreadable file or plan, bad input files, no usable GPU, a compile or run
// failure, or unwritable outputs. Errors go to `err` as "mirage-run: error: ...".
int runCudaFileOnGpu(const std::string& path, const interp::RunOptions& options, std::ostream& out,
                     std::ostream& err, const CudaRunOptions& cuda = {});

}  // namespace mirage::backend
