// The `gpu` section of mirage-bench (issue 6, "Baselines, side by side"):
// each example's chosen .cu timed on the GPU through its launch plan, next
// to the best PyTorch time read from bench/torch_baselines.py's JSON, the
// empty-kernel launch time, the device-memory bandwidth a plain copy kernel
// reaches, and each example's fraction of the memory-bandwidth bound
// (minimum bytes / peak bandwidth) and of the tensor-core bound (matmul
// FLOPs / dense f16 peak). Without a usable GPU it reports why and measures
// nothing. The tool parses the programs; this file only needs graphs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::backend {

struct GpuBenchInput {
  std::string name;                  // "gqa"
  std::string cuSource;              // the chosen .cu (mirage-opt -o)
  ir::Graph program;                 // the example as written: bytes and FLOPs
  std::optional<ir::Graph> chosen;   // the chosen μGraph (mirage-opt --emit-mg): the prediction
};

struct GpuBenchRow {
  std::string name;
  std::string error;        // empty when timed
  int launches = 0;
  double oursUs = 0;        // median
  double predictedUs = 0;   // cost model with this device's figures (0: no μGraph given)
  double torchUs = 0;       // best PyTorch baseline (0: none)
  std::string torchWhich;   // "eager", "compile", "sdpa"
  double bytes = 0;         // inputs + outputs
  double matmulFlops = 0;   // of the program as written
  double bandwidthBoundUs = 0;
  double tensorBoundUs = 0;
};

struct GpuBenchReport {
  bool ran = false;
  std::string reason;  // "no usable GPU: ..." when !ran
  std::string device;
  double emptyLaunchUs = 0;
  double copyBandwidthGBs = 0;  // measured by a copy kernel (0: failed)
  double peakBandwidthGBs = 0;
  double tensorTflops = 0;
  std::vector<GpuBenchRow> rows;
  std::vector<std::string> notes;  // e.g. a torch JSON that could not be read
};

// torchJson: path of bench/torch_baselines.py's output, or empty.
GpuBenchReport runGpuBench(const std::vector<GpuBenchInput>& inputs, const std::string& torchJson);

// The table: example, launches, ours, predicted, best PyTorch, ratio
// (PyTorch / ours: above 1 means we are faster), fraction of the bandwidth
// bound and of the tensor-core bound, and the µs per launch against the
// empty launch.
std::string formatGpuBench(const GpuBenchReport& report);

}  // namespace mirage::backend
