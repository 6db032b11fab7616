// Published figures of the GPUs the cost model knows (A100, H100, H200), and
// the mapping from an `--arch sm_XX` string or a real device to one of them.
// Every figure is a datasheet peak; docs/cost-model.md lists the sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mirage::backend {

struct ArchSpec {
  std::string name;               // "H100-SXM5", ...
  int smArch = 90;                // compute capability as 10*major+minor
  int numSMs = 132;
  double clockGHz = 1.98;         // boost clock
  double dramBandwidthGBs = 0;    // device-memory peak, GB/s (1e9 bytes)
  double l2BandwidthGBs = 0;      // L2 -> SM aggregate, GB/s
  int64_t l2Bytes = 0;
  double tensorTflops = 0;        // dense f16/bf16 tensor-core peak with f32 accumulation
  double mmaSyncFraction = 1.0;   // share of tensorTflops that `mma.sync` reaches (Hopper needs wgmma for all of it)
  double fp32Tflops = 0;          // CUDA-core peak (an FMA counts 2)
  double smemBytesPerClockPerSM = 128;  // shared-memory bandwidth per SM
  int64_t smemBytesPerSM = 0;     // usable by blocks
  int64_t smemBytesPerBlock = 0;  // the opt-in per-block maximum
  int regsPerSM = 65536;
  int maxRegsPerThread = 255;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  double launchOverheadUs = 2.0;  // back-to-back launches on one stream, per kernel
  double memLatencyUs = 0.6;      // one dependent round trip to device memory

  double smemBandwidthGBsPerSM() const { return smemBytesPerClockPerSM * clockGHz; }
};

const ArchSpec& a100Spec();  // A100-SXM4-80GB, sm_80
const ArchSpec& h100Spec();  // H100-SXM5-80GB, sm_90
const ArchSpec& h200Spec();  // H200-SXM-141GB, sm_90

// "sm_80", "sm_86", "sm_90a", "compute_90" -> 80, 86, 90, 90; nullopt when malformed.
std::optional<int> parseSmArch(std::string_view arch);

// The figures for a target: a GPU name ("a100", "h100", "h200", any case) or
// an arch string ("sm_80" -> A100, "sm_86"/"sm_89" -> A100 figures,
// "sm_90"/"sm_90a" and newer -> H100). nullopt when neither.
std::optional<ArchSpec> archSpecFor(std::string_view target);

}  // namespace mirage::backend
