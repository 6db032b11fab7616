// The driver component owns the mirage-opt pipeline as a library function
// (tools/mirage-opt.cpp only fills Options from the command line): read and
// check the input, look up the result cache, search and verify, lower the
// verified candidates to CUDA and rank them (measured on a GPU when one is
// usable, gpu_timer.h; else by the backend's cost model), falling back to the
// next candidate when one cannot be lowered, and finally to the input lowered
// one kernel per operator, and write every requested output whole or not at all. The
// command-line contract is ../shared/spec/cli.md; docs/search.md describes
// the cache and the report.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "mirage/backend/arch.h"
#include "mirage/search/search.h"

namespace mirage::driver {

class CandidateTimer;  // gpu_timer.h

struct Options {
  std::string input;          // .mg file, or "-" for standard input
  std::string output;         // -o: .cu file, "-" for standard output
  std::string emitMg;         // --emit-mg
  std::string dumpDir;        // --dump-candidates
  std::string report;         // --report
  double timeLimitSeconds = 0;  // 0: no limit given (the search uses its default budget)
  int jobs = 0;               // 0: all cores
  std::string device = "auto";  // auto | cuda | none
  std::string arch;           // "" = the GPU's, else sm_90
  uint64_t seed = 0;
  std::string cacheDir;       // "" = $XDG_CACHE_HOME/mirage-opt or ~/.cache/mirage-opt
  bool noCache = false;
  bool noSearch = false;
  int verbosity = 0;          // -1 quiet, 0 normal, 1 verbose
  search::Limits limits;
};

// Without --time-limit the search runs until it is complete (cli.md: the
// space within the limits explored, or every open plan pruned by the cost
// model's lower bound); this is only a safety ceiling for programs whose
// space the bound cannot close in reasonable time (the report then says
// "ended_by": "time_limit").
inline constexpr double kDefaultSearchSeconds = 60;

// Runs mirage-opt; returns the exit status (0 success, 1 rejected input or
// no output, 2 bad options such as no output requested). Diagnostics and
// progress go to `err`; `out` receives `-o -`.
int runMirageOpt(const Options& options, std::ostream& out, std::ostream& err);
// The same with `gpu` as the device (tests substitute one; null: the CUDA
// driver's device, as --device says).
int runMirageOpt(const Options& options, std::ostream& out, std::ostream& err, CandidateTimer* gpu);

// Writes `text` to `path` whole or not at all (a temporary file in the same
// directory, renamed into place). Returns an error message, empty on success.
std::string writeFileAtomically(const std::string& path, const std::string& text);

// Sets sopt's lower bounds (branch and bound, docs/search.md "Bounds") to
// those of the backend's cost model for `arch`: the search's KernelFloor
// carried over to the backend's, field by field, in this one place.
void setCostBounds(const backend::ArchSpec& arch, search::Options& sopt);

// The cost every candidate ranks by: the backend model's predicted time
// for `arch`, rounded down to search::kCostResolutionUs.
std::function<double(const ir::Graph&)> modelCost(const backend::ArchSpec& arch);

// The directory the result cache uses for these options.
std::string cacheDirectory(const Options& options);

}  // namespace mirage::driver
