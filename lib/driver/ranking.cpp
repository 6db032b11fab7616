// Choosing the candidate to write. With a GPU: the candidates, cheapest
// predicted first, are lowered, compiled, checked against the interpreter on
// the device and timed, and the fastest measured one wins; a candidate whose
// GPU outputs are wrong is never chosen. Without one: the lowest predicted
// time among the candidates that lower (and compile). In both, the input
// lowered one kernel per operator is among the candidates, so a program
// always has something to fall back to. Before a candidate is measured or
// chosen it must pass the numerics check (numerics.h): one that overflows or
// loses precision where the input does not is skipped like one that cannot
// be lowered.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "mirage/backend/cost_model.h"
#include "mirage/codegen/cuda.h"
#include "run.h"

namespace mirage::driver {
namespace {

// At most this many candidates are measured (the cheapest predicted ones):
// each costs a compile, an interpreter comparison and up to two seconds of
// timing, and the model's ranking beyond the first few rarely matters.
constexpr size_t kMaxMeasured = 12;
// Measuring one candidate takes about this long; with --time-limit no new
// measurement starts when less than this is left.
constexpr double kSecondsPerMeasurement = 2.5;

std::vector<size_t> byPrediction(const std::vector<search::Candidate>& cands) {
  std::vector<size_t> order(cands.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(cands[a].cost, cands[a].kernels) < std::tie(cands[b].cost, cands[b].kernels);
  });
  return order;
}

// The order the GPU measures in: cheapest predicted first, then the input
// lowered, then the rest. The input is the baseline a GPU run should never
// lose to: on the first H200 runs the model put QKNorm+GQA's fused kernels
// at 31 to 45 us and the input at 97.5 us, and they took 274 to 736 us
// against the input's 138; under a time limit that leaves room for two
// measurements, the second goes to the input.
std::vector<size_t> measurementOrder(const std::vector<search::Candidate>& cands, std::vector<size_t> order) {
  auto input = std::find_if(order.begin(), order.end(), [&](size_t i) { return isInputLowered(cands[i]); });
  if (input != order.end() && input - order.begin() > 1) std::rotate(order.begin() + 1, input, input + 1);
  return order;
}

void addFallbackNote(Run& run, size_t i) {
  const auto& cands = run.result.candidates;
  if (isInputLowered(cands[i]) && cands.size() > 1)
    run.reason += "; no μGraph beats the input, which is lowered one kernel per operator";
}

// `excluded`: candidates already shown wrong on the GPU.
bool chooseByModel(Run& run, const std::vector<bool>& excluded = {}) {
  auto& cands = run.result.candidates;
  std::vector<size_t> order = byPrediction(cands);
  bool needCuda = !run.opt.output.empty();
  size_t unsafe = 0, unlowered = 0;
  for (size_t i : order) {
    if (i < excluded.size() && excluded[i]) continue;
    // The check before lowering: it costs about as much as a compile, and a
    // rejected candidate need not be compiled at all.
    if (!passesNumerics(run, i)) {
      ++unsafe;
      continue;
    }
    run.lowered[i] = lower(run, cands[i].graph, needCuda, hopperByDefault(run));
    bool ok = run.lowered[i].generated && (!needCuda || run.lowered[i].compiled);
    if (!ok) {
      ++unlowered;
      run.note(fmt::format("candidate {} cannot be used: {}", cands[i].id, run.lowered[i].error));
      continue;
    }
    run.chosen = static_cast<int>(i);
    if (!excluded.empty())
      run.reason = "lowest predicted time among the candidates not shown wrong before the GPU was lost";
    else if (i == order.front())
      run.reason = cands.size() == 1 ? "the only candidate" : "lowest predicted time";
    else if (unlowered == 0)
      run.reason = fmt::format("lowest predicted time among the candidates that pass the numerics check ({} "
                               "cheaper one(s) rejected)",
                               unsafe);
    else
      run.reason = "lowest predicted time among the candidates that pass the numerics check and could be lowered";
    addFallbackNote(run, i);
    return true;
  }
  run.failure = fmt::format("no candidate could be lowered to CUDA ({} verified; {} rejected by the pre-check, {} by "
                            "the full check, {} by the numerics check)",
                            cands.size(), run.result.stats.precheckFailed, run.result.stats.checkFailed, unsafe);
  return false;
}

// On Hopper, the same candidate lowered with codegen's Hopper path (TMA bulk
// copies, a deeper pipeline) is measured too; the faster of the two that the
// GPU computes correctly is kept. A Hopper variant that is wrong on the GPU
// is a code-generation bug: it is reported, and the sm_80 path kept.
void measureHopperPath(Run& run, const search::Candidate& c, Lowered& portable) {
  Lowered h = lower(run, c.graph, true, true);
  if (!h.generated || !h.compiled || h.source == portable.source) return;  // no tile qualifies
  h.measured = true;
  h.timing = run.gpu->measure(run.program, c.graph, h.source, h.binary);
  if (!h.timing.checked)
    run.note(fmt::format("candidate {}: the Hopper path failed on the GPU, keeping the sm_80 path: {}", c.id,
                         h.timing.error));
  const bool hopperWins =
      h.timing.timed && (!portable.timing.timed || h.timing.medianUs < portable.timing.medianUs);
  if (hopperWins) std::swap(h, portable);
  portable.otherMeasured = true;
  portable.otherTiming = h.timing;
}

bool chooseByGpu(Run& run) {
  auto& cands = run.result.candidates;
  std::vector<size_t> order = byPrediction(cands);
  run.emptyLaunchUs = run.gpu->emptyLaunchUs();
  const std::vector<size_t> toMeasure = measurementOrder(cands, order);
  size_t measured = 0, wrong = 0, unlowered = 0;
  bool lost = false;
  std::string firstWrong;
  for (size_t i : toMeasure) {
    if (measured == kMaxMeasured || lost) break;
    if (measured > 0 && run.secondsLeft() < kSecondsPerMeasurement) {
      run.note(fmt::format("time limit: measured {} of {} candidates", measured, cands.size()));
      break;
    }
    if (!passesNumerics(run, i)) continue;  // never measured, never chosen
    Lowered& l = run.lowered[i];
    l = lower(run, cands[i].graph, true, false);
    if (!l.generated || !l.compiled) {
      ++unlowered;
      run.note(fmt::format("candidate {} cannot be used: {}", cands[i].id, l.error));
      continue;
    }
    l.measured = true;
    l.timing = run.gpu->measure(run.program, cands[i].graph, l.source, l.binary);
    ++measured;
    // The Hopper path was correct and slower on every candidate of the first
    // H200 runs (1.4x to 13x, docs/cost-model.md): under a time limit the
    // measurements go to candidates instead.
    if (run.arch.smArch >= 90 && !l.timing.deviceLost && run.opt.timeLimitSeconds <= 0)
      measureHopperPath(run, cands[i], l);
    if (l.timing.deviceLost || (l.otherMeasured && l.otherTiming.deviceLost)) {
      lost = true;
      run.note(fmt::format("the GPU faulted on candidate {} (a code-generation bug: {}); the candidates not yet "
                           "measured are ranked by the cost model",
                           cands[i].id, l.timing.deviceLost ? l.timing.error : l.otherTiming.error));
    }
    if (l.timing.checkedAgainstOwnGraph || (l.otherMeasured && l.otherTiming.checkedAgainstOwnGraph))
      run.note(fmt::format("candidate {} matches its own μGraph on the GPU but not the input program at the "
                           "check's inputs ({}): the input program itself is off there in {}, and the candidate "
                           "passed the numerics check against float64",
                           cands[i].id,
                           l.timing.checkedAgainstOwnGraph ? l.timing.inputDiffers : l.otherTiming.inputDiffers,
                           ir::dtypeName(run.program.dtype)));
    if (!l.timing.checked) {
      ++wrong;
      if (firstWrong.empty()) firstWrong = fmt::format("candidate {}: {}", cands[i].id, l.timing.error);
      run.note(fmt::format("candidate {} failed on the GPU: {}", cands[i].id, l.timing.error));
    } else if (run.opt.verbosity > 0) {
      run.note(l.timing.timed ? fmt::format("candidate {}: {:.2f} us measured ({} path), {:.2f} us predicted",
                                            cands[i].id, l.timing.medianUs, l.hopper ? "Hopper" : "sm_80",
                                            cands[i].cost)
                              : fmt::format("candidate {}: correct, but {}", cands[i].id, l.timing.error));
    }
  }
  // The fastest measured; failing any timing, the cheapest predicted among
  // those the GPU computed correctly.
  int best = -1;
  for (size_t i : order)
    if (run.lowered[i].timing.timed &&
        (best < 0 || run.lowered[i].timing.medianUs < run.lowered[static_cast<size_t>(best)].timing.medianUs))
      best = static_cast<int>(i);
  if (best >= 0) {
    run.chosen = best;
    run.reason = fmt::format("lowest measured time on {} ({} of {} candidates measured)", run.gpu->deviceName(),
                             measured, cands.size());
    addFallbackNote(run, static_cast<size_t>(best));
    return true;
  }
  if (lost) {
    std::vector<bool> excluded(cands.size(), false);
    for (size_t i = 0; i < cands.size(); ++i) {
      const Lowered& l = run.lowered[i];
      excluded[i] = l.measured && !l.timing.checked;
    }
    std::vector<Lowered> measuredLowered = run.lowered;
    if (chooseByModel(run, excluded)) {
      // Keep what the GPU said of the candidates it measured, for the report.
      for (size_t i = 0; i < cands.size(); ++i)
        if (measuredLowered[i].measured) run.lowered[i] = measuredLowered[i];
      return true;
    }
  }
  for (size_t i : order)
    if (run.lowered[i].timing.checked) {
      run.chosen = static_cast<int>(i);
      run.reason = fmt::format("lowest predicted time among the candidates correct on {} (no timing succeeded: {})",
                               run.gpu->deviceName(), run.lowered[i].timing.error);
      addFallbackNote(run, i);
      return true;
    }
  run.failure = fmt::format("no candidate ran and matched the reference on {} ({} measured, {} failed, {} not lowered, "
                            "{} rejected by the numerics check); first: {}",
                            run.gpu->deviceName(), measured, wrong, unlowered, run.rejectedNumerics,
                            firstWrong.empty() ? "none could be lowered" : firstWrong);
  return false;
}

}  // namespace

bool isInputLowered(const search::Candidate& c) { return c.origin.rfind("input", 0) == 0; }

bool passesNumerics(Run& run, size_t i) {
  const search::Candidate& c = run.result.candidates[i];
  if (run.opt.noSearch || isInputLowered(c)) return true;  // the input is its own baseline
  if (run.numericsOf.size() != run.result.candidates.size()) run.numericsOf.resize(run.result.candidates.size());
  if (!run.numericsOf[i]) {
    if (!run.numerics) {
      run.numerics = std::make_unique<NumericsCheck>(run.program, run.opt.seed, jobsOrAllCores(run.opt.jobs));
    }
    // With --time-limit the check may use the time the search left for
    // ranking, but for a twentieth of the limit (at least 0.3 s) kept for
    // lowering and writing; past that point no candidate after the first
    // checked one is checked at all: the loop moves on, down to the input,
    // which needs none.
    auto deadline = Clock::time_point::max();
    if (run.opt.timeLimitSeconds > 0)
      deadline = run.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                 run.opt.timeLimitSeconds - std::max(0.3, 0.05 * run.opt.timeLimitSeconds)));
    if (run.numericsChecked > 0 && Clock::now() >= deadline) {
      run.note(fmt::format("candidate {} skipped: no time is left for its numerics check", c.id));
      return false;  // not cached: it was not judged
    }
    ++run.numericsChecked;
    run.numericsOf[i] = run.numerics->check(c.graph, deadline);
    const NumericsVerdict& v = *run.numericsOf[i];
    // The input's error is the same in every verdict: said once, as the
    // rule holds candidates to it (numerics.h, kUnsafeInputError).
    if (int m = unsafeInputMagnitude(v); m >= 0 && !run.saidInputUnsafe) {
      run.saidInputUnsafe = true;
      const MagnitudeOutcome& o = v.magnitudes[static_cast<size_t>(m)];
      run.note(fmt::format("the input program itself is off by {:.3g} of its largest output on {} inputs at {:g} "
                           "(an intermediate overflows or cancels in {}); candidates are held to no worse than "
                           "the input there",
                           *std::max_element(o.inputError.begin(), o.inputError.end()), o.family, o.level,
                           ir::dtypeName(run.program.dtype)));
    }
    if (!v.passed && !v.checked) {
      // Not judged (the time limit cut every magnitude it could compare):
      // skipped, not counted as a rejection.
      run.note(fmt::format("candidate {} skipped: {}", c.id, v.reason));
    } else if (!v.passed) {
      ++run.rejectedNumerics;
      run.note(fmt::format("candidate {} rejected by the numerics check: {}", c.id, v.reason));
    } else if (run.opt.verbosity > 0) {
      run.note(fmt::format("candidate {} passes the numerics check in {:.2f} s: error {:.3g}, the input's {:.3g}", c.id,
                           v.seconds, v.largestError, v.inputLargestError));
    }
  }
  return run.numericsOf[i]->passed;
}

namespace {

// The NVRTC compiler of the process, one per cache setting: --no-cache
// compiles every time (no memory or disk cache), otherwise compiled binaries
// are kept in memory and in the result cache's directory (--cache-dir), so a
// second run does not compile the same source again.
backend::Compiler& compilerFor(const Options& opt) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<backend::Compiler>> compilers;
  backend::CompilerOptions co;
  co.useCache = !opt.noCache;
  if (!opt.noCache) co.cacheDir = (std::filesystem::path(cacheDirectory(opt)) / "nvrtc").string();
  std::string key = co.useCache ? co.cacheDir : std::string("\n(no cache)");
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<backend::Compiler>& c = compilers[key];
  if (!c) c = std::make_unique<backend::Compiler>(co);
  return *c;
}

}  // namespace

bool hopperByDefault(const Run& run) { return run.arch.smArch >= 90 && run.archName.ends_with("a"); }

Lowered lower(const Run& run, const ir::Graph& g, bool compile, bool hopper) {
  Lowered l;
  l.hopper = hopper;
  codegen::Options copt;
  copt.smArch = run.arch.smArch;
  copt.hopperPaths = hopper;
  copt.sourceName = run.inputName;
  codegen::Result r = codegen::generateCuda(g, copt);
  l.generated = r.ok;
  l.error = r.error;
  l.source = r.source;
  l.functions = r.functions;
  l.cost = backend::costToJson(backend::estimateCost(g, run.arch));
  if (r.ok && compile && backend::Compiler::available()) {
    backend::Compiler& compiler = compilerFor(run.opt);
    backend::CompileRequest req;
    req.source = r.source;
    req.arch = run.archName;
    req.label = "candidate";
    // NVRTC's optimizer and PTX translation run one function at a time on
    // one thread unless asked: a stitched layer chain's 20 kernels took 2.3 s
    // of wall time alone, 1.5 s on two threads (docs/search.md, revision 10).
    // The thread count is part of the cache key, like any option.
    if (int threads = compileThreads(run.opt); threads > 1)
      req.options.push_back(fmt::format("--split-compile={}", threads));
    l.binary = compiler.compile(req);
    l.compiled = l.binary.ok;
    if (!l.binary.ok) l.error = l.binary.error;
  } else {
    l.compiled = r.ok && compile;
  }
  return l;
}

bool choose(Run& run) {
  run.lowered.assign(run.result.candidates.size(), {});
  return run.gpu ? chooseByGpu(run) : chooseByModel(run);
}

}  // namespace mirage::driver
