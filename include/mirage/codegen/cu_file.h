// A .cu file written by mirage-opt as `mirage-run KERNEL.cu` reads it: the
// file's text, the signature its header comment declares, and the steps of a
// run that do not depend on where the kernels run (under the host shim,
// codegen/host_runner.h, or on the GPU, backend/run_cuda.h): checking the
// --in/--out names, making the inputs (from .npy files or the seed, exactly
// as for a .mg program) and writing the outputs. codegen owns the format;
// both runners share these so that they accept and report the same.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "mirage/interp/run.h"
#include "mirage/interp/tensor.h"
#include "mirage/ir/graph.h"

namespace mirage::codegen {

struct TensorSignature {
  std::string name;
  ir::DType dtype = ir::DType::F16;
  ir::Shape shape;
};

// What a generated file's header comment declares.
struct Signature {
  std::string program;  // NAME of mirage_NAME
  std::vector<TensorSignature> inputs, outputs;
};

// Reads the header comment of a file written by generateCuda. Returns an
// empty string on success, else what is missing.
std::string readSignature(const std::string& source, Signature& sig);

// Reads the file at `path` whole into `source`. Returns an empty string, or
// "PATH: cannot open the file".
std::string readCuFile(const std::string& path, std::string& source);

// Checks mirage-run's --in and --out names against a file's inputs and
// outputs: each must name one, and none may be given twice. Returns an empty
// string or the message of the command-line error; `owner` says whose
// inputs they are in it ("program 'gqa'", or the file's path).
std::string checkRunNames(const interp::RunOptions& options, const std::vector<TensorSignature>& inputs,
                          const std::vector<TensorSignature>& outputs, const std::string& owner);

// The inputs of a run, in order: read from the --in .npy file where one is
// given (its shape must match), else interp::randomTensor from the seed.
// Returns an empty string or why an input file cannot be used.
std::string makeRunInputs(const interp::RunOptions& options, const std::vector<TensorSignature>& inputs,
                          std::vector<interp::Tensor>& tensors);

// Writes `results` (one per output, in order) to the --out .npy files, or
// without --out prints interp::summarizeOutput of each to `out`. Returns an
// empty string or why an output file could not be written.
std::string writeRunOutputs(const interp::RunOptions& options, const std::vector<TensorSignature>& outputs,
                            const std::vector<interp::Tensor>& results, std::ostream& out);

}  // namespace mirage::codegen
