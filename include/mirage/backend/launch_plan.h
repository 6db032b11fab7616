// The launch plan of a generated `.cu` file: its buffers and the sequence of
// kernel launches its host entry point performs. NVRTC compiles only device
// code, so the backend cannot call the entry point; instead the generator
// writes the plan into the file as `// mirage-plan` comment lines, which this
// header parses, and the backend replays the launches through the CUDA driver.
// The format (docs/backend.md, "The launch plan"):
//
//   // mirage-plan v1
//   // mirage-plan input X f16 16,4096
//   // mirage-plan output Y f16 16,6144
//   // mirage-plan workspace 196608
//   // mirage-plan launch mirage_k0 grid=96,1,1 block=128,1,1 smem=20480 args=in0,in1,ws+0
//   // mirage-plan copy out1 in0 8192
//
// Every kernel parameter is a pointer: `inN` / `outN` are the N-th input or
// output buffer (declaration order), `ws+B` the workspace base plus B bytes.
// `copy DST SRC BYTES` lines are device-to-device copies the entry point
// makes after all launches (an output that is an input, or repeats a value).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::backend {

struct PlanBuffer {
  std::string name;
  ir::DType dtype = ir::DType::F16;
  ir::Shape shape;
  int64_t bytes() const { return ir::numElements(shape) * ir::dtypeBytes(dtype); }
};

struct PlanArg {
  enum class Kind { Input, Output, Workspace };
  Kind kind = Kind::Input;
  int index = 0;       // Input/Output: which buffer
  int64_t offset = 0;  // byte offset (Workspace; Input/Output: a view into the buffer, "inN+B")
};

struct PlanLaunch {
  std::string kernel;  // the __global__ function's name as written in the source
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t sharedBytes = 0;  // dynamic shared memory
  std::vector<PlanArg> args;
};

struct PlanCopy {
  PlanArg destination;
  PlanArg source;
  int64_t bytes = 0;
};

struct LaunchPlan {
  std::vector<PlanBuffer> inputs;
  std::vector<PlanBuffer> outputs;
  int64_t workspaceBytes = 0;
  std::vector<PlanLaunch> launches;
  std::vector<PlanCopy> copies;  // after all launches, in order

  // Bytes every correct implementation moves through device memory at least
  // once: all inputs read, all outputs written.
  int64_t minimumBytes() const;
};

// Reads the `// mirage-plan` lines of a source. On a malformed line, a
// missing `v1` line or a reference to a buffer that does not exist, returns
// nullopt and sets *error to "line N: what is wrong".
std::optional<LaunchPlan> parseLaunchPlan(std::string_view source, std::string* error);

// Writes the plan as the comment lines parseLaunchPlan reads (with a final
// newline).
std::string formatLaunchPlan(const LaunchPlan& plan);

}  // namespace mirage::backend
