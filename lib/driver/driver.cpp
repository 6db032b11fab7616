// The mirage-opt pipeline: options -> parse -> (cache) -> search and verify
// -> rank -> lower -> write. Reads top to bottom; each step is a function.
#include "mirage/driver/driver.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cache.h"
#include "run.h"
#include "mirage/backend/arch.h"
#include "mirage/backend/cost_model.h"
#include "mirage/codegen/cuda.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/verifier.h"

namespace mirage::driver {
namespace {

using json = nlohmann::json;

std::optional<ir::Graph> readInput(Run& run) {
  if (run.opt.input != "-") {
    run.inputName = run.opt.input;
    return parse::parseFile(run.opt.input, run.err);
  }
  run.inputName = "<stdin>";
  std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  parse::Diagnostics diags(run.inputName, text);
  auto g = parse::parseProgram(text, diags);
  diags.print(run.err);
  return g;
}

// The device and the target. A GPU (the injected one, else the CUDA driver's
// device 0 unless --device none) ranks the candidates when the target is its
// own architecture; the target is --arch, else the GPU's, else sm_90.
bool chooseDevice(Run& run, CandidateTimer* injected) {
  std::string arch = run.opt.arch;
  run.deviceUsed = "cost model";
  CandidateTimer* gpu = nullptr;
  if (run.opt.device != "none") {
    std::string whyNot;
    if (injected) {
      gpu = injected;
    } else if ((run.ownedGpu = openGpuTimer(run.opt.seed, &whyNot))) {
      gpu = run.ownedGpu.get();
    } else if (run.opt.device == "cuda") {
      run.error(fmt::format("--device cuda: {}", whyNot));
      return false;
    } else if (run.opt.verbosity > 0) {
      run.note(fmt::format("{}; ranking with the cost model", whyNot));
    }
  }
  if (gpu && arch.empty()) arch = gpu->arch();
  if (arch.empty()) arch = "sm_90";
  auto spec = backend::archSpecFor(arch);
  if (!spec) {
    run.error(fmt::format("unknown architecture '{}' (expected sm_80, sm_86, sm_89, sm_90, ...)", arch));
    return false;
  }
  run.arch = *spec;
  run.archName = arch;
  if (gpu) {
    // Code for another architecture cannot be timed on this device (a cubin
    // for sm_80 does not load on sm_90): rank it with the model instead.
    if (backend::parseSmArch(arch) != backend::parseSmArch(gpu->arch())) {
      if (run.opt.device == "cuda") {
        run.error(fmt::format("--device cuda: the GPU ({}, {}) cannot time code for --arch {}", gpu->deviceName(),
                              gpu->arch(), arch));
        return false;
      }
      run.note(fmt::format("--arch {} is not the GPU's {}: ranking with the cost model", arch, gpu->arch()));
    } else {
      run.gpu = gpu;
      run.arch = gpu->archSpec();  // the model's figures of this very device
      run.deviceUsed = gpu->deviceName();
    }
  }
  return true;
}

double searchBudget(const Run& run) {
  if (run.opt.timeLimitSeconds <= 0) return kDefaultSearchSeconds;  // a ceiling: completion ends the search first
  // Leave a quarter of the limit (at least 0.3 s) for lowering and writing,
  // and with a GPU 40% (measuring a candidate takes a second or two). NVRTC
  // compiles the written program, which may be the input lowered, so a
  // large program keeps more, by the functions it compiles (launches of the
  // same code share one, codegen/cuda.h): decoder_distinct_4's input (104
  // launches, 56 functions) compiles in 3.5 s on one thread and in 2.0 to
  // 2.5 s on two with the split compile (lower(), ranking.cpp), about 0.057
  // and 0.038 s per function on a quiet machine; a busy one took about 2.2
  // times as long (decoder_layer.mg's 26: 1.5 s of CPU, 3.4 s of wall time).
  constexpr double kBusyMachineFactor = 2.2;
  const double compilePerFunction = (compileThreads(run.opt) > 1 ? 0.038 : 0.057) * kBusyMachineFactor;
  Lowered input = lower(run, run.program, /*compile=*/false, hopperByDefault(run));
  int functions = input.generated ? input.functions : ir::countKernels(run.program);
  double left = run.opt.timeLimitSeconds - since(run.start);
  double keep = std::max((run.gpu ? 0.4 : 0.25) * run.opt.timeLimitSeconds, compilePerFunction * functions);
  return std::max(0.05, left - std::max(0.3, keep));
}

void progressLine(const Run& run, const search::Stats& s) {
  if (run.opt.verbosity < 0 || !run.progress) return;
  run.progress->update(fmt::format("mirage-opt: {:.0f}s: {} states, {} pruned, {} by bound, {} verified, best {}",
                                   s.seconds, s.states, s.pruned, s.prunedByBound, s.verified,
                                   s.bestCost >= 0 ? fmt::format("{:.2f} us", s.bestCost) : "none"),
                       s.seconds);
}

}  // namespace

// The cost model's lower bounds, from its own formula (branch and bound).
void setCostBounds(const backend::ArchSpec& arch, search::Options& sopt) {
  sopt.kernelFloor = [arch](const search::KernelFloor& f) {
    thread_local backend::KernelFloor b;  // called per search state: keep the vector's storage
    b.blocks = f.blocks;
    b.forloop = f.forloop;
    b.dramBytes = f.dramBytes;
    b.blockLoadBytes = f.blockLoadBytes;
    b.blockSmemBytes = f.blockSmemBytes;
    b.smemPerBlock = f.smemPerBlock;
    b.blockMatmulFlops = f.blockMatmulFlops;
    b.tensorCores = f.tensorCores;
    b.blockElements.assign(f.blockElements.begin(), f.blockElements.end());
    return backend::kernelFloorUs(b, arch);
  };
  sopt.launchesFloor = [arch](int launches, double bytes, int64_t loopSteps) {
    return backend::launchesFloorUs(launches, bytes, arch, loopSteps);
  };
}

std::function<double(const ir::Graph&)> modelCost(const backend::ArchSpec& arch) {
  return [arch](const ir::Graph& g) { return search::quantizeUs(backend::estimateCost(g, arch).totalUs); };
}

namespace {

// Takes a cache entry as run.result after checking it again: every stored
// candidate must parse, be legal and be proven equivalent to the input by a
// fresh verification (a damaged or tampered entry must never put a wrong
// program into the output). False, with a note, when the entry is unusable.
bool useCacheHit(Run& run, const CachedResult& hit, const std::function<double(const ir::Graph&)>& cost,
                 const verify::Options& vopt, double budgetSeconds) {
  search::Result r;
  verify::Verifier verifier(run.program, vopt);
  verify::Cancel cancel;
  cancel.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(budgetSeconds));
  for (size_t i = 0; i < hit.candidatesMg.size(); ++i) {
    parse::Diagnostics diags("<cache>", hit.candidatesMg[i]);
    auto g = parse::parseProgram(hit.candidatesMg[i], diags);
    if (!g || !ir::checkProgram(*g).empty()) {
      run.note("ignoring a damaged cache entry");
      return false;
    }
    // The key leaves the graph's name out (cache.cpp): an entry may come
    // from the same program under another name, whose candidates take this
    // one's (it names the written kernel's entry point).
    g->name = run.program.name;
    verify::Verdict v = verifier.check(*g, cancel);
    if (v.cancelled) {
      run.note(fmt::format("the time limit stopped re-verifying the cached candidates; {} of {} kept", r.candidates.size(),
                           hit.candidatesMg.size()));
      break;
    }
    if (!v.equivalent) {
      run.note(fmt::format("ignoring a cache entry whose candidate {} is not equivalent to the input ({})", i,
                           v.message));
      return false;
    }
    search::Candidate c;
    c.id = static_cast<int>(i);
    c.graph = std::move(*g);
    c.kernels = ir::countKernels(c.graph);
    c.cost = cost(c.graph);
    c.errorBound = v.errorBound;
    c.origin = hit.origins[i];
    r.candidates.push_back(std::move(c));
  }
  if (r.candidates.empty()) return false;
  r.stats = hit.stats;
  r.best = 0;
  for (size_t i = 1; i < r.candidates.size(); ++i)
    if (std::tie(r.candidates[i].cost, r.candidates[i].kernels) <
        std::tie(r.candidates[static_cast<size_t>(r.best)].cost, r.candidates[static_cast<size_t>(r.best)].kernels))
      r.best = static_cast<int>(i);
  run.result = std::move(r);
  return true;
}

// Search (or cache hit) filling run.result. False when nothing usable.
bool searchOrCache(Run& run) {
  const Options& opt = run.opt;
  double budget = searchBudget(run);
  const std::function<double(const ir::Graph&)> cost = modelCost(run.arch);
  std::string dir = cacheDirectory(opt);
  // The budget is part of the key only when the user bounded it: the same
  // command line finds its own result again.
  search::Limits keyLimits = opt.limits;
  std::string key = cacheKey(run.program, keyLimits,
                             fmt::format("{} seed {} budget {}", run.archName, opt.seed,
                                         opt.timeLimitSeconds > 0 ? fmt::format("{:.3f}", opt.timeLimitSeconds) : "default"));
  verify::Options vopt;
  vopt.seed = opt.seed;
  vopt.threads = jobsOrAllCores(opt.jobs);
  if (!opt.noCache && !opt.noSearch) {
    if (auto hit = loadCache(dir, key)) {
      if (useCacheHit(run, *hit, cost, vopt, budget)) {
        run.cacheState = "hit";
        run.note(fmt::format("cache hit ({}/{}.json)", dir, key));
        return true;
      }
    }
    run.cacheState = "miss";
  }

  if (opt.noSearch) {
    search::Candidate c;
    c.graph = run.program;
    c.kernels = ir::countKernels(run.program);
    c.cost = cost(run.program);
    c.errorBound = 0;
    c.origin = "input (--no-search)";
    run.result.candidates.push_back(std::move(c));
    run.result.best = 0;
    return true;
  }

  if (usesRegions(run) && searchByRegions(run, budget, cost, vopt)) return true;

  verify::Verifier verifier(run.program, vopt);
  search::Options sopt;
  sopt.limits = opt.limits;
  // The per-block shared memory the target offers bounds the working set.
  if (run.arch.smemBytesPerBlock > 0) sopt.limits.smemBytesPerBlock = run.arch.smemBytesPerBlock;
  sopt.timeLimitSeconds = budget;
  sopt.jobs = jobsOrAllCores(opt.jobs);
  sopt.seed = opt.seed;
  sopt.cost = cost;
  setCostBounds(run.arch, sopt);
  std::mutex mu;
  sopt.onProgress = [&](const search::Stats& s) {
    std::lock_guard lock(mu);
    progressLine(run, s);
  };
  if (opt.verbosity > 0)
    sopt.onCandidate = [&](const search::Candidate& c) {
      std::lock_guard lock(mu);
      run.note(fmt::format("verified a candidate: {} kernel(s), {:.2f} us ({})", c.kernels, c.cost, c.origin));
    };
  int width = 0;
  bool terminal = stderrIsTerminal(run.err, &width);
  ProgressLine progress(run.err, terminal, /*logInterval=*/5.0, width);
  run.progress = &progress;
  run.result = search::runSearch(run.program, verifier, sopt);
  progress.finish();
  run.progress = nullptr;
  const search::Stats& s = run.result.stats;
  run.note(fmt::format("search: {} states, {} pruned, {} templates, {} verified ({} rejected by the pre-check, {} by "
                       "the full check, {} dominated, {} unverified) in {:.2f}s{}",
                       s.states, s.pruned, s.templates, s.verified, s.precheckFailed, s.checkFailed, s.dominated,
                       s.unverified, s.seconds,
                       s.complete ? fmt::format(", complete ({})", s.endedBy) : fmt::format(" ({})", s.endedBy)));
  if (s.boundViolations > 0)
    run.note(fmt::format("internal: {} templates cost less than their lower bound; the first: {}", s.boundViolations,
                         s.firstBoundViolation));
  if (!opt.noCache) {
    std::string e = storeCache(dir, key, run.result);
    if (!e.empty() && opt.verbosity > 0) run.note(fmt::format("cache not written: {}", e));
  }
  return true;
}

// A finite number, or null (JSON has no infinity: an inf or NaN output).
json finiteOrNull(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }

// What the numerics check said of candidate i (cli.md: the magnitudes
// tried, its largest error, the input's).
json numericsJson(const Run& run, size_t i) {
  const search::Candidate& c = run.result.candidates[i];
  if (i >= run.numericsOf.size() || !run.numericsOf[i]) {
    std::string why = run.opt.noSearch || isInputLowered(c)
                          ? "the input program itself"
                          : "not reached: a candidate before it was chosen, or no time was left";
    return {{"checked", false}, {"reason", why}};
  }
  const NumericsVerdict& v = *run.numericsOf[i];
  json mags = json::array();
  for (const MagnitudeOutcome& m : v.magnitudes) {
    json mj = {{"family", m.family}, {"level", m.level}};
    if (m.skipped) {
      mj["skipped"] = m.skipReason;
    } else {
      json ce = json::array(), ie = json::array();
      for (double e : m.candidateError) ce.push_back(finiteOrNull(e));
      for (double e : m.inputError) ie.push_back(finiteOrNull(e));
      mj["error"] = ce;
      mj["input_error"] = ie;
      mj["largest_reference"] = m.maxAbsReference;
    }
    mags.push_back(mj);
  }
  json j = {{"checked", v.checked},
            {"passed", v.passed},
            {"magnitudes", mags},
            {"largest_error", finiteOrNull(v.largestError)},  // null: it gave inf or NaN
            {"inf_or_nan", !std::isfinite(v.largestError)},
            {"input_largest_error", v.inputLargestError},
            {"seconds", v.seconds}};
  if (!v.reason.empty()) j["reason"] = v.reason;
  return j;
}

// What the GPU said of one candidate: the check, the timing, and how the
// time compares with the two floors (device-memory traffic at peak
// bandwidth; its launches, each as long as an empty kernel).
json gpuJson(const Run& run, const search::Candidate& c, const CandidateTiming& t) {
  json g = {{"checked", t.checked}, {"timed", t.timed}, {"check_max_abs_error", t.maxAbsError}};
  if (!t.error.empty()) g["error"] = t.error;
  if (t.checked) g["checked_against"] = t.checkedAgainstOwnGraph ? "own μGraph" : "input program";
  if (!t.inputDiffers.empty()) g["input_differs"] = t.inputDiffers;
  if (t.timed) {
    g["median_us"] = t.medianUs;
    g["min_us"] = t.minUs;
    g["runs"] = t.runs;
    g["bandwidth_bound_us"] = t.boundUs;
    if (t.medianUs > 0) g["fraction_of_bandwidth_bound"] = t.boundUs / t.medianUs;
    if (run.emptyLaunchUs > 0 && c.kernels > 0)
      g["per_launch_vs_empty_kernel"] = t.medianUs / (c.kernels * run.emptyLaunchUs);
  }
  return g;
}

// Calibration, recorded by every GPU run: how far the cost model's
// predictions are from the measured times, and whether it would have
// chosen the same candidate.
json modelAgainstMeasurements(const Run& run) {
  std::vector<double> ratios;
  int modelBest = -1, measuredBest = -1;
  const auto& cands = run.result.candidates;
  for (size_t i = 0; i < cands.size(); ++i) {
    const CandidateTiming& t = run.lowered[i].timing;
    if (!t.timed || t.medianUs <= 0) continue;
    ratios.push_back(cands[i].cost / t.medianUs);
    if (modelBest < 0 || cands[i].cost < cands[static_cast<size_t>(modelBest)].cost) modelBest = static_cast<int>(i);
    if (measuredBest < 0 || t.medianUs < run.lowered[static_cast<size_t>(measuredBest)].timing.medianUs)
      measuredBest = static_cast<int>(i);
  }
  if (ratios.empty()) return nullptr;
  std::sort(ratios.begin(), ratios.end());
  return {{"measured_candidates", ratios.size()},
          {"median_predicted_over_measured", ratios[ratios.size() / 2]},
          {"min_predicted_over_measured", ratios.front()},
          {"max_predicted_over_measured", ratios.back()},
          {"same_choice_as_measured", modelBest == measuredBest}};
}

json reportJson(const Run& run) {
  const search::Stats& s = run.result.stats;
  json j;
  j["input"] = run.inputName;
  j["tool_version"] = MIRAGE_VERSION;
  j["arch"] = run.archName;
  j["device"] = run.deviceUsed;
  j["seed"] = run.opt.seed;
  j["cache"] = run.cacheState;
  j["search"] = {{"states", s.states},
                 {"pruned", s.pruned},
                 {"duplicates", s.duplicates},
                 {"templates", s.templates},
                 {"instantiated", s.instantiated},
                 {"no_legal_extents", s.noExtents},
                 {"prechecked", s.prechecked},
                 {"rejected_by_precheck", s.precheckFailed},
                 {"rejected_by_check", s.checkFailed},
                 {"provisional_restarts", s.provisionalRestarts},
                 {"rejected_undefined", s.rejectedUndefined},
                 {"rejected_unguarded", s.rejectedUnguarded},
                 {"rejected_numerics", run.rejectedNumerics},
                 {"dominated", s.dominated},
                 {"unverified", s.unverified},
                 {"verified", s.verified},
                 {"seconds", s.seconds},
                 {"seconds_to_first", s.secondsToFirst},
                 {"seconds_to_best", s.secondsToBest},
                 {"timed_out", s.timedOut},
                 {"exhausted", s.exhausted},
                 {"pruned_by_bound", s.prunedByBound},
                 {"items_pruned_by_bound", s.itemsPrunedByBound},
                 {"bound_violations", s.boundViolations},
                 {"item_runs", s.itemRuns},
                 {"items_cut", s.itemsCut},
                 {"items_extended", s.itemsExtended},
                 {"item_bets", s.itemBets},
                 {"complete", s.complete},
                 {"ended_by", s.endedBy}};
  if (!s.firstRejection.empty()) j["search"]["first_rejection"] = s.firstRejection;
  if (!s.firstBoundViolation.empty()) j["search"]["first_bound_violation"] = s.firstBoundViolation;
  if (!run.regionsReport.is_null()) j["regions"] = run.regionsReport;
  json cands = json::array();
  for (size_t i = 0; i < run.result.candidates.size(); ++i) {
    const search::Candidate& c = run.result.candidates[i];
    const Lowered& l = run.lowered[i];
    json cj = {{"id", c.id},
               {"kernels", c.kernels},
               {"verified", true},
               {"error_bound", c.errorBound},
               {"compiled", l.compiled || (l.generated && run.opt.output.empty())},
               {"predicted_us", c.cost},
               {"origin", c.origin}};
    cj["numerics"] = numericsJson(run, i);
    if (!l.cost.is_null()) cj["cost"] = l.cost;
    if (!l.error.empty()) cj["error"] = l.error;
    if (l.generated && run.arch.smArch >= 90) cj["code_path"] = l.hopper ? "hopper" : "sm_80";
    if (l.measured) cj["gpu"] = gpuJson(run, c, l.timing);
    if (l.otherMeasured) cj["gpu_other_code_path"] = gpuJson(run, c, l.otherTiming);
    if (l.timing.timed) {
      cj["measured_us"] = l.timing.medianUs;
      cj["predicted_over_measured"] = c.cost / l.timing.medianUs;
    }
    cands.push_back(cj);
  }
  j["candidates"] = cands;
  if (run.gpu) {
    j["gpu"] = {{"name", run.gpu->deviceName()},
                {"arch", run.gpu->arch()},
                {"peak_bandwidth_gbs", run.arch.dramBandwidthGBs},
                {"empty_launch_us", run.emptyLaunchUs >= 0 ? json(run.emptyLaunchUs) : json(nullptr)},
                {"cost_model", modelAgainstMeasurements(run)}};
  }
  if (run.chosen >= 0) {
    const search::Candidate& b = run.result.candidates[static_cast<size_t>(run.chosen)];
    const Lowered& l = run.lowered[static_cast<size_t>(run.chosen)];
    j["best"] = {{"id", b.id}, {"kernels", b.kernels}, {"reason", run.reason}, {"predicted_us", b.cost}};
    if (l.timing.timed) j["best"]["measured_us"] = l.timing.medianUs;
  } else {
    j["best"] = nullptr;
  }
  return j;
}

std::string withName(ir::Graph g, const std::string& name) {
  g.name = name;
  return ir::printGraph(g);
}

bool writeOutputs(Run& run) {
  const Options& opt = run.opt;
  bool ok = true;
  auto put = [&](const std::string& path, const std::string& text) {
    if (path == "-") {
      run.out << text;
      return;
    }
    std::string e = writeFileAtomically(path, text);
    if (!e.empty()) {
      run.error(e);
      ok = false;
    }
  };
  const search::Candidate* best =
      run.chosen >= 0 ? &run.result.candidates[static_cast<size_t>(run.chosen)] : nullptr;
  if (!opt.dumpDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(opt.dumpDir, ec);
    json summary = json::array();
    for (size_t i = 0; i < run.result.candidates.size(); ++i) {
      const search::Candidate& c = run.result.candidates[i];
      if (!run.lowered[i].generated && run.lowered[i].source.empty())
        run.lowered[i] = lower(run, c.graph, false, hopperByDefault(run));
      std::string stem = (std::filesystem::path(opt.dumpDir) / fmt::format("{:03d}", c.id)).string();
      put(stem + ".mg", withName(c.graph, run.program.name));
      if (run.lowered[i].generated) put(stem + ".cu", run.lowered[i].source);
      summary.push_back({{"id", c.id},
                         {"mg", fmt::format("{:03d}.mg", c.id)},
                         {"cu", run.lowered[i].generated ? json(fmt::format("{:03d}.cu", c.id)) : json(nullptr)},
                         {"kernels", c.kernels},
                         {"predicted_us", c.cost},
                         {"verified", true},
                         {"error_bound", c.errorBound},
                         {"origin", c.origin},
                         // true or false when the numerics check ran on it, else null
                         {"numerics_passed", i < run.numericsOf.size() && run.numericsOf[i]
                                                 ? json(run.numericsOf[i]->passed)
                                                 : json(nullptr)},
                         {"best", best == &c}});
    }
    put((std::filesystem::path(opt.dumpDir) / "summary.json").string(), summary.dump(2) + "\n");
  }
  if (best && !opt.emitMg.empty()) put(opt.emitMg, withName(best->graph, run.program.name));
  if (best && !opt.output.empty()) put(opt.output, run.lowered[static_cast<size_t>(run.chosen)].source);
  if (!opt.report.empty()) put(opt.report, reportJson(run).dump(2) + "\n");
  return ok;
}

}  // namespace

std::string cacheDirectory(const Options& options) {
  if (!options.cacheDir.empty()) return options.cacheDir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/mirage-opt";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/mirage-opt";
  return ".mirage-opt-cache";
}

void Run::note(const std::string& msg) const {
  if (opt.verbosity < 0) return;
  if (progress) progress->clear();
  err << "mirage-opt: " << msg << "\n";
}

void Run::error(const std::string& msg) const {
  if (progress) progress->clear();
  err << "mirage-opt: error: " << msg << "\n";
}

double Run::secondsLeft() const {
  return opt.timeLimitSeconds > 0 ? opt.timeLimitSeconds - since(start) : 1e300;
}

int runMirageOpt(const Options& options, std::ostream& out, std::ostream& err) {
  return runMirageOpt(options, out, err, nullptr);
}

int runMirageOpt(const Options& options, std::ostream& out, std::ostream& err, CandidateTimer* gpu) {
  Run run(options, out, err);
  if (options.output.empty() && options.emitMg.empty() && options.dumpDir.empty() && options.report.empty()) {
    run.error("nothing to write: give at least one of -o, --emit-mg, --dump-candidates or --report");
    return 2;
  }
  if (options.device != "auto" && options.device != "cuda" && options.device != "none") {
    run.error(fmt::format("--device must be auto, cuda or none, not '{}'", options.device));
    return 2;
  }
  auto program = readInput(run);
  if (!program) return 1;
  if (ir::Error e = ir::checkProgram(*program); !e.empty()) {
    run.error(fmt::format("{}: {}", run.inputName, e));
    return 1;
  }
  run.program = std::move(*program);
  if (!chooseDevice(run, gpu)) return 1;
  if (options.verbosity > 0) run.note(fmt::format("seed {}, {} job(s), target {} ({})", options.seed, jobsOrAllCores(options.jobs), run.archName, run.arch.name));
  if (!searchOrCache(run)) return 1;
  if (!choose(run)) {
    run.error(run.failure);
    writeOutputs(run);
    return 1;
  }
  const search::Candidate& best = run.result.candidates[static_cast<size_t>(run.chosen)];
  const Lowered& won = run.lowered[static_cast<size_t>(run.chosen)];
  run.note(fmt::format("chose candidate {}: {} kernel launch(es), predicted {:.2f} us{} ({})", best.id, best.kernels,
                       best.cost, won.timing.timed ? fmt::format(", measured {:.2f} us", won.timing.medianUs) : "",
                       run.reason));
  return writeOutputs(run) ? 0 : 1;
}

}  // namespace mirage::driver
