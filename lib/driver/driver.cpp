// The mirage-opt pipeline: options -> parse -> (cache) -> search and verify
// -> rank -> lower -> write. Reads top to bottom; each step is a function.
#include "mirage/driver/driver.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cache.h"
#include "mirage/backend/arch.h"
#include "mirage/backend/cost_model.h"
#include "mirage/backend/gpu.h"
#include "mirage/backend/nvrtc.h"
#include "mirage/codegen/cuda.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/verifier.h"

namespace mirage::driver {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Run {
  Run(const Options& o, std::ostream& output, std::ostream& errors) : opt(o), out(output), err(errors) {}
  const Options& opt;
  std::ostream& out;
  std::ostream& err;
  Clock::time_point start = Clock::now();
  std::string inputName;
  ir::Graph program;
  backend::ArchSpec arch;
  std::string archName;   // "sm_90"
  std::string deviceUsed;  // "cost model" or the GPU
  std::string cacheState = "off";
  search::Result result;

  struct Lowered {
    bool generated = false;
    bool compiled = false;
    std::string error;
    std::string source;
    json cost;
  };
  std::vector<Lowered> lowered;  // per candidate, filled on demand
  int chosen = -1;
  std::string reason;

  void note(const std::string& msg) const {
    if (opt.verbosity >= 0) err << "mirage-opt: " << msg << "\n";
  }
  void error(const std::string& msg) const { err << "mirage-opt: error: " << msg << "\n"; }
};

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

// Target figures: --arch, else the GPU's (when one may be used), else sm_90.
bool chooseArch(Run& run) {
  std::string arch = run.opt.arch;
  run.deviceUsed = "cost model";
  if (run.opt.device != "none") {
    backend::GpuStatus gpu = backend::probeGpu();
    if (gpu.usable) {
      if (arch.empty()) arch = fmt::format("sm_{}", gpu.props.smArch);
    } else if (run.opt.device == "cuda") {
      run.error(fmt::format("--device cuda: {}", gpu.reason));
      return false;
    } else if (run.opt.verbosity > 0) {
      run.note(fmt::format("{}; ranking with the cost model", gpu.reason));
    }
  }
  if (arch.empty()) arch = "sm_90";
  auto spec = backend::archSpecFor(arch);
  if (!spec) {
    run.error(fmt::format("unknown architecture '{}' (expected sm_80, sm_86, sm_89, sm_90, ...)", arch));
    return false;
  }
  run.arch = *spec;
  run.archName = arch;
  return true;
}

double searchBudget(const Run& run) {
  if (run.opt.timeLimitSeconds <= 0) return kDefaultSearchSeconds;
  // Leave a quarter of the limit (at least 0.3 s) for lowering and writing.
  double left = run.opt.timeLimitSeconds - since(run.start);
  return std::max(0.05, left - std::max(0.3, 0.25 * run.opt.timeLimitSeconds));
}

int jobsFor(const Options& opt) {
  if (opt.jobs > 0) return opt.jobs;
  return std::max(1u, std::thread::hardware_concurrency());
}

void progressLine(const Run& run, const search::Stats& s) {
  if (run.opt.verbosity < 0) return;
  run.err << fmt::format("mirage-opt: {:.0f}s: {} states, {} pruned, {} verified, best {}\n", s.seconds, s.states,
                         s.pruned, s.verified, s.bestCost >= 0 ? fmt::format("{:.2f} us", s.bestCost) : "none");
}

// Search (or cache hit) filling run.result. False when nothing usable.
bool searchOrCache(Run& run) {
  const Options& opt = run.opt;
  double budget = searchBudget(run);
  auto cost = [&run](const ir::Graph& g) { return backend::estimateCost(g, run.arch).totalUs; };
  std::string dir = cacheDirectory(opt);
  // The budget is part of the key only when the user bounded it: the same
  // command line finds its own result again.
  search::Limits keyLimits = opt.limits;
  std::string key = cacheKey(run.program, keyLimits,
                             fmt::format("{} seed {} budget {}", run.archName, opt.seed,
                                         opt.timeLimitSeconds > 0 ? fmt::format("{:.3f}", opt.timeLimitSeconds) : "default"));
  if (!opt.noCache && !opt.noSearch) {
    if (auto hit = loadCache(dir, key)) {
      search::Result r;
      bool ok = true;
      for (size_t i = 0; i < hit->candidatesMg.size() && ok; ++i) {
        parse::Diagnostics diags("<cache>", hit->candidatesMg[i]);
        auto g = parse::parseProgram(hit->candidatesMg[i], diags);
        if (!g || !ir::checkProgram(*g).empty()) {
          ok = false;
          break;
        }
        search::Candidate c;
        c.id = static_cast<int>(i);
        c.graph = std::move(*g);
        c.kernels = ir::countKernels(c.graph);
        c.cost = cost(c.graph);
        c.errorBound = hit->errorBounds[i];
        c.origin = hit->origins[i];
        r.candidates.push_back(std::move(c));
      }
      if (ok) {
        r.stats = hit->stats;
        r.best = 0;
        for (size_t i = 1; i < r.candidates.size(); ++i)
          if (std::tie(r.candidates[i].cost, r.candidates[i].kernels) <
              std::tie(r.candidates[static_cast<size_t>(r.best)].cost, r.candidates[static_cast<size_t>(r.best)].kernels))
            r.best = static_cast<int>(i);
        run.result = std::move(r);
        run.cacheState = "hit";
        run.note(fmt::format("cache hit ({}/{}.json)", dir, key));
        return true;
      }
      run.note("ignoring a damaged cache entry");
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

  verify::Options vopt;
  vopt.seed = opt.seed;
  vopt.threads = jobsFor(opt);
  verify::Verifier verifier(run.program, vopt);
  search::Options sopt;
  sopt.limits = opt.limits;
  // The per-block shared memory the target offers bounds the working set.
  if (run.arch.smemBytesPerBlock > 0) sopt.limits.smemBytesPerBlock = run.arch.smemBytesPerBlock;
  sopt.timeLimitSeconds = budget;
  sopt.jobs = jobsFor(opt);
  sopt.seed = opt.seed;
  sopt.cost = cost;
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
  run.result = search::runSearch(run.program, verifier, sopt);
  const search::Stats& s = run.result.stats;
  run.note(fmt::format("search: {} states, {} pruned, {} templates, {} verified ({} rejected by the pre-check, {} by "
                       "the full check, {} dominated, {} unverified) in {:.2f}s{}",
                       s.states, s.pruned, s.templates, s.verified, s.precheckFailed, s.checkFailed, s.dominated,
                       s.unverified, s.seconds, s.timedOut ? " (time limit)" : ""));
  if (!opt.noCache) {
    std::string e = storeCache(dir, key, run.result);
    if (!e.empty() && opt.verbosity > 0) run.note(fmt::format("cache not written: {}", e));
  }
  return true;
}

Run::Lowered lower(Run& run, const ir::Graph& g, bool compile) {
  Run::Lowered l;
  codegen::Options copt;
  copt.smArch = run.arch.smArch;
  copt.sourceName = run.inputName;
  codegen::Result r = codegen::generateCuda(g, copt);
  l.generated = r.ok;
  l.error = r.error;
  l.source = r.source;
  l.cost = backend::costToJson(backend::estimateCost(g, run.arch));
  if (r.ok && compile && backend::Compiler::available()) {
    static backend::Compiler compiler;
    backend::CompileRequest req;
    req.source = r.source;
    req.arch = run.archName;
    req.label = "candidate";
    backend::CompileResult c = compiler.compile(req);
    l.compiled = c.ok;
    if (!c.ok) l.error = c.error;
  } else {
    l.compiled = r.ok && compile;
  }
  return l;
}

// Picks the cheapest candidate that lowers (and compiles); the input itself,
// one kernel per operator, is the last resort.
bool choose(Run& run) {
  auto& cands = run.result.candidates;
  run.lowered.assign(cands.size(), {});
  std::vector<size_t> order(cands.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(cands[a].cost, cands[a].kernels) < std::tie(cands[b].cost, cands[b].kernels);
  });
  bool needCuda = !run.opt.output.empty();
  for (size_t i : order) {
    run.lowered[i] = lower(run, cands[i].graph, needCuda);
    bool usable = run.lowered[i].generated && (!needCuda || run.lowered[i].compiled);
    if (!usable) {
      run.note(fmt::format("candidate {} cannot be used: {}", cands[i].id, run.lowered[i].error));
      continue;
    }
    run.chosen = static_cast<int>(i);
    if (i == order.front())
      run.reason = cands.size() == 1 ? "the only candidate" : "lowest predicted time";
    else
      run.reason = "lowest predicted time among the candidates that could be lowered";
    if (cands[i].origin.rfind("input", 0) == 0 && cands.size() > 1)
      run.reason += "; no μGraph beats the input, which is lowered one kernel per operator";
    return true;
  }
  return false;
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
                 {"dominated", s.dominated},
                 {"unverified", s.unverified},
                 {"verified", s.verified},
                 {"seconds", s.seconds},
                 {"seconds_to_first", s.secondsToFirst},
                 {"seconds_to_best", s.secondsToBest},
                 {"timed_out", s.timedOut},
                 {"exhausted", s.exhausted}};
  if (!s.firstRejection.empty()) j["search"]["first_rejection"] = s.firstRejection;
  json cands = json::array();
  for (size_t i = 0; i < run.result.candidates.size(); ++i) {
    const search::Candidate& c = run.result.candidates[i];
    const Run::Lowered& l = run.lowered[i];
    json cj = {{"id", c.id},
               {"kernels", c.kernels},
               {"verified", true},
               {"error_bound", c.errorBound},
               {"compiled", l.compiled || (l.generated && run.opt.output.empty())},
               {"predicted_us", c.cost},
               {"origin", c.origin}};
    if (!l.cost.is_null()) cj["cost"] = l.cost;
    if (!l.error.empty()) cj["error"] = l.error;
    cands.push_back(cj);
  }
  j["candidates"] = cands;
  if (run.chosen >= 0) {
    const search::Candidate& b = run.result.candidates[static_cast<size_t>(run.chosen)];
    j["best"] = {{"id", b.id}, {"kernels", b.kernels}, {"reason", run.reason}, {"predicted_us", b.cost}};
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
        run.lowered[i] = lower(run, c.graph, false);
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

int runMirageOpt(const Options& options, std::ostream& out, std::ostream& err) {
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
  if (!chooseArch(run)) return 1;
  if (options.verbosity > 0) run.note(fmt::format("seed {}, {} job(s), target {} ({})", options.seed, jobsFor(options), run.archName, run.arch.name));
  if (!searchOrCache(run)) return 1;
  if (!choose(run)) {
    const search::Stats& s = run.result.stats;
    run.error(fmt::format("no candidate could be lowered to CUDA ({} verified; {} rejected by the pre-check, {} by "
                          "the full check)",
                          run.result.candidates.size(), s.precheckFailed, s.checkFailed));
    writeOutputs(run);
    return 1;
  }
  const search::Candidate& best = run.result.candidates[static_cast<size_t>(run.chosen)];
  run.note(fmt::format("chose candidate {}: {} kernel launch(es), predicted {:.2f} us ({})", best.id, best.kernels,
                       best.cost, run.reason));
  return writeOutputs(run) ? 0 : 1;
}

}  // namespace mirage::driver
