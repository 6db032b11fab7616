// The state of one mirage-opt run, shared by the pipeline's steps
// (driver.cpp: input, search, outputs; ranking.cpp: choosing the candidate).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "mirage/backend/arch.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/driver/driver.h"
#include "mirage/driver/gpu_timer.h"
#include "mirage/driver/numerics.h"
#include "mirage/driver/progress.h"
#include "mirage/search/search.h"
#include "mirage/verify/verifier.h"

namespace mirage::driver {

using Clock = std::chrono::steady_clock;

inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// --jobs as given, or all cores for 0.
inline int jobsOrAllCores(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The threads NVRTC compiles a candidate on (--split-compile when more than
// one; lower(), ranking.cpp): the compile reserve under --time-limit
// (driver.cpp) depends on it.
inline int compileThreads(const Options& opt) { return jobsOrAllCores(opt.jobs); }

// One candidate lowered to CUDA (and compiled, and measured, as far as asked).
struct Lowered {
  bool generated = false;
  bool compiled = false;
  std::string error;
  std::string source;
  int functions = 0;      // distinct __global__ functions in source (NVRTC's work)
  backend::CompileResult binary;
  nlohmann::json cost;
  bool measured = false;  // given to the GPU (timing holds the outcome)
  CandidateTiming timing;
  bool hopper = false;    // generated with codegen's Hopper path (TMA bulk copies)
  // On an sm_90+ GPU both code paths of a candidate are measured; this is the
  // one not kept (the faster correct one is kept).
  bool otherMeasured = false;
  CandidateTiming otherTiming;
};

struct Run {
  Run(const Options& o, std::ostream& output, std::ostream& errors) : opt(o), out(output), err(errors) {}
  const Options& opt;
  std::ostream& out;
  std::ostream& err;
  Clock::time_point start = Clock::now();
  std::string inputName;
  ir::Graph program;
  backend::ArchSpec arch;
  std::string archName;    // "sm_90"
  std::string deviceUsed;  // "cost model" or the GPU's name
  std::string cacheState = "off";
  search::Result result;

  // The GPU that ranks the candidates: null when ranking with the cost model.
  CandidateTimer* gpu = nullptr;
  std::unique_ptr<CandidateTimer> ownedGpu;  // when the driver opened it
  double emptyLaunchUs = -1;

  std::vector<Lowered> lowered;  // per candidate, filled on demand
  // The numerics check (numerics.h), made on first use; its verdict per
  // candidate, for those that came up to be chosen or measured.
  std::unique_ptr<NumericsCheck> numerics;
  std::vector<std::optional<NumericsVerdict>> numericsOf;
  int64_t rejectedNumerics = 0;
  int numericsChecked = 0;  // candidates the check has run on
  bool saidInputUnsafe = false;  // the note that the input itself is off (kUnsafeInputError), once
  int chosen = -1;
  std::string reason;
  std::string failure;  // why no candidate could be chosen
  nlohmann::json regionsReport;  // the report's "regions" (null when searched whole)
  // The search's status line while the search runs (null otherwise): every
  // message erases it first, so that none is appended to it on a terminal.
  ProgressLine* progress = nullptr;

  void note(const std::string& msg) const;
  void error(const std::string& msg) const;
  // Seconds left before --time-limit (a large number without one).
  double secondsLeft() const;
};

// Generates the CUDA source of `g` for the run's target and, when `compile`,
// compiles it with NVRTC. `hopper`: codegen's Hopper path (sm_90+).
Lowered lower(const Run& run, const ir::Graph& g, bool compile, bool hopper);

// Whether code for the run's target uses codegen's Hopper path when no GPU
// decides: only when the user asks for the arch-specific target sm_90a (the
// path has been checked against emulation, not yet timed on hardware).
bool hopperByDefault(const Run& run);

// The input program as given, lowered one kernel per operator (the
// fallback; its origin starts with "input").
bool isInputLowered(const search::Candidate& c);

// Whether candidate i may be chosen (or measured) as far as the numerics
// check goes: runs the check on first call (and notes a rejection). The
// input program itself, and with --no-search the input as given, need none.
bool passesNumerics(Run& run, size_t i);

// Regions (regions.cpp, docs/search.md "Regions"): a program of more than
// kRegionThresholdOps operators (shorthands expanded) that holds no custom
// kernel and that the cut rule splits is searched region by region, regions
// of at most kRegionMaxOps operators, each for up to kRegionSearchSeconds.
inline constexpr int kRegionThresholdOps = 20;
inline constexpr int kRegionMaxOps = 8;
inline constexpr double kRegionSearchSeconds = 5;
inline constexpr double kRegionQuietSeconds = 1.5;  // see searchByRegions
bool usesRegions(const Run& run);
// Fills run.result with the input (candidate 0) and, when it is verified,
// the stitched program; run.regionsReport with the regions and their times.
// False (with a note) when the program could not be split or stitched: the
// caller then searches it whole.
bool searchByRegions(Run& run, double budget, const std::function<double(const ir::Graph&)>& cost,
                     const verify::Options& vopt);

// Chooses run.chosen among run.result.candidates: by GPU measurement when
// run.gpu is set, else by the cost model. False (run.failure says why) when
// no candidate can be used.
bool choose(Run& run);

}  // namespace mirage::driver
