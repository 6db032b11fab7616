// The codegen component lowers a legal μGraph (ir::Graph) to one
// self-contained CUDA source file as ../shared/spec/cli.md defines it:
// header comment, one __global__ function per kernel launch (a pre-defined
// operator is lowered as the custom kernel that computes it), device helpers
// emitted inline, and the C-linkage entry points mirage_NAME and
// mirage_NAME_workspace_bytes.
//
// This header is the API the driver calls; its implementation owner may
// extend it.
#pragma once

#include <cstdint>
#include <string>

#include "mirage/ir/graph.h"

namespace mirage::codegen {

struct Options {
  int smArch = 90;               // target compute capability (80, 86, 89, 90, ...)
  std::string sourceName;        // the input file, for the header comment
};

struct Result {
  bool ok = false;
  std::string error;           // why the μGraph cannot be lowered (e.g. shared memory)
  std::string source;          // the .cu text
  int64_t workspaceBytes = 0;  // what mirage_NAME_workspace_bytes returns
};

Result generateCuda(const ir::Graph& program, const Options& options);

}  // namespace mirage::codegen
