// How mirage-opt measures candidates on a GPU (`--device auto|cuda`): a
// CandidateTimer compiles a candidate's generated source for the device,
// runs it once on seeded random inputs and compares every output with the
// reference interpreter's (the input program, interpreted once; where that
// differs, the candidate's own μGraph: backend::checkCandidate), and only
// then times it (backend::Gpu::time: warm-up, CUDA events, a stable median,
// a time below bytes / peak bandwidth rejected). The driver ranks by these
// measurements; openGpuTimer is the real device, tests pass their own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "mirage/backend/arch.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/ir/graph.h"

namespace mirage::driver {

struct CandidateTiming {
  bool checked = false;     // ran and matched the reference
  bool timed = false;       // checked, and its timing is trusted
  std::string error;        // why not (the stage names itself: "compile: ...", "check: ...", "timing: ...")
  double maxAbsError = 0;   // of the check
  // Checked against the candidate's own μGraph, because its outputs differ
  // from the input program's at the check's inputs (`inputDiffers`: where).
  bool checkedAgainstOwnGraph = false;
  std::string inputDiffers;
  double medianUs = 0;      // of the timed runs
  double minUs = 0;
  double boundUs = 0;       // minimum bytes / peak device-memory bandwidth
  int runs = 0;
  bool deviceLost = false;  // a kernel fault lost the GPU context: nothing more can run on it
};

class CandidateTimer {
 public:
  virtual ~CandidateTimer() = default;
  virtual std::string deviceName() const = 0;  // "NVIDIA H200"
  virtual std::string arch() const = 0;        // the device's target, "sm_90"
  virtual backend::ArchSpec archSpec() const = 0;
  // One launch of an empty kernel on the same stream, in microseconds; < 0
  // when it could not be measured.
  virtual double emptyLaunchUs() = 0;
  // Checks `source` (compiled as `binary` when that is ok, else compiled
  // here for arch()) against `program`'s reference outputs, or where those
  // differ against `candidate`'s (the μGraph `source` was lowered from),
  // then times it.
  virtual CandidateTiming measure(const ir::Graph& program, const ir::Graph& candidate, const std::string& source,
                                  const backend::CompileResult& binary) = 0;
};

// The GPU through the run-time-loaded CUDA driver; null with *whyNot ("no
// usable GPU: ...") when there is none. `seed` draws the check's inputs.
std::unique_ptr<CandidateTimer> openGpuTimer(uint64_t seed, std::string* whyNot);

}  // namespace mirage::driver
