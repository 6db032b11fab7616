// Running and timing compiled candidates on a GPU through the CUDA driver
// API, which is loaded at run time with dlopen("libcuda.so.1") and never
// linked: on a machine without a driver or a device, open() says why ("no
// usable GPU: ...") and nothing else changes. Launches follow the candidate's
// launch plan (launch_plan.h). Timing: warm-up runs, then timed runs with CUDA
// events around each run of the whole launch sequence (L2 flushed before each
// run unless asked not to) until the median is stable; a median below the
// physical bound (minimum bytes / peak bandwidth) is a failed run, not a win.
// After a kernel fault (illegal address, ...) the CUDA context is lost for
// the life of the process; every later call then fails with the first fault.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirage/backend/arch.h"
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"

namespace mirage::backend {

struct DeviceProps {
  int ordinal = 0;
  std::string name;           // "NVIDIA H200"
  int smArch = 0;             // 10*major+minor
  int numSMs = 0;
  int clockKHz = 0;
  int memoryClockKHz = 0;
  int memoryBusWidthBits = 0;
  int64_t totalMemoryBytes = 0;
  int64_t l2Bytes = 0;
  int64_t smemBytesPerBlockOptin = 0;
  int64_t smemBytesPerSM = 0;
  int regsPerSM = 0;
  int maxThreadsPerSM = 0;
  int driverVersion = 0;      // e.g. 13000

  std::string archString() const;    // "sm_90"
  double peakBandwidthGBs() const;   // 2 * memory clock * bus width (DDR)
};

struct TimingOptions {
  int warmupRuns = 3;
  int minRuns = 10;
  int maxRuns = 200;
  double maxSeconds = 2.0;        // stop adding runs after this much timing
  double stableSpread = 0.02;     // stop when (p75 - p25) / median is below this
  bool flushL2 = true;            // overwrite a buffer of twice the L2 size before each run
  double boundSlack = 0.9;        // a median below boundSlack * physical bound fails
};

struct TimingResult {
  bool ok = false;
  std::string error;
  double medianUs = 0;
  double minUs = 0;
  double maxUs = 0;
  double boundUs = 0;             // minimum bytes / peak device-memory bandwidth
  int runs = 0;
  std::vector<double> samplesUs;  // every timed run, in order
};

struct RunResult {
  bool ok = false;
  std::string error;
  std::vector<std::vector<uint8_t>> outputs;  // host bytes of each plan output
};

class CudaDriver;  // the dlopen'ed entry points (lib/backend/cuda_driver.h)

// The CUDA driver library to load: $MIRAGE_CUDA_DRIVER when set and not
// empty (tests point it at a stand-in, or at a missing file to force the
// no-GPU path in a tool), else "libcuda.so.1".
std::string defaultDriverLibrary();

// One device with its primary context. Not thread-safe: run and time
// candidates one at a time (overlapping timings would be wrong anyway).
class Gpu {
 public:
  // Opens device `ordinal`. Returns null and sets *whyNot ("no usable GPU:
  // ...") when the driver library is missing, has no device, or fails.
  static std::unique_ptr<Gpu> open(std::string* whyNot, int ordinal = 0,
                                   const std::string& driverLibrary = defaultDriverLibrary());
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  const DeviceProps& props() const { return props_; }
  // True after a kernel fault: the context is lost and every later call fails.
  bool lost() const { return !broken_.empty(); }
  // Cost-model figures for this device: the published spec of its family
  // with SM count, clock, memory bandwidth, L2 and shared memory as measured.
  ArchSpec archSpec() const;

  // Runs the plan once on the given input bytes (one vector per plan input,
  // exactly its size) and reads back every output.
  RunResult run(const LaunchPlan& plan, const CompileResult& binary,
                const std::vector<std::vector<uint8_t>>& inputs);
  // Times the plan on inputs filled with small deterministic values.
  TimingResult time(const LaunchPlan& plan, const CompileResult& binary,
                    const TimingOptions& options = {});
  // Times one launch of an empty kernel (compiled here for this device): the
  // floor against which launch-bound candidates are judged.
  TimingResult timeEmptyLaunch(Compiler& compiler, const TimingOptions& options = {});

 private:
  struct Prepared;
  Gpu();
  // Loads the module, resolves the plan's kernels and allocates its buffers.
  bool prepare(const LaunchPlan& plan, const CompileResult& binary, Prepared* p,
               std::string* error);
  bool loadKernels(const LaunchPlan& plan, const CompileResult& binary, Prepared* p,
                   std::string* error);
  bool allocateBuffers(const LaunchPlan& plan, Prepared* p, std::string* error);
  bool launchAll(const Prepared& p, std::string* error);
  bool check(int result, const char* what, std::string* error);

  std::unique_ptr<CudaDriver> driver_;
  void* context_ = nullptr;  // CUcontext (the primary context)
  void* stream_ = nullptr;   // CUstream
  int device_ = 0;           // CUdevice
  DeviceProps props_;
  std::string broken_;  // set after a fault: the context cannot be used again
};

// Convenience: is a GPU usable, and if not, why. Opens and closes the device.
struct GpuStatus {
  bool usable = false;
  std::string reason;  // "no usable GPU: ..." when not usable
  DeviceProps props;
};
GpuStatus probeGpu(int ordinal = 0, const std::string& driverLibrary = defaultDriverLibrary());

}  // namespace mirage::backend
