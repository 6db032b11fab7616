// The fuzz loop (fuzz.h): generate in the parent, run the chain in children,
// shrink the failures afterwards (one at a time), write the findings, and
// print the summary.
#include "mirage/fuzz/fuzz.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <sstream>

#include "mirage/fuzz/sandbox.h"
#include "mirage/fuzz/shrink.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"

namespace mirage::fuzz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// nvcc as given, else on PATH, else the usual CUDA location; "" if none.
std::string findNvcc(const std::string& given) {
  if (!given.empty()) return given;
  if (std::system("command -v nvcc > /dev/null 2>&1") == 0) return "nvcc";
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  return "";
}

CaseOptions caseOptions(const FuzzOptions& o, uint64_t seed) {
  CaseOptions c;
  c.seed = seed;
  c.optTimeLimit = o.optTimeLimit;
  c.noSearch = o.noSearch;
  c.arch = o.arch;
  c.plantBug = o.plantBug;
  return c;
}

// A fresh work directory for one case, made and removed by the parent so
// that a child killed for a hang leaves nothing behind.
struct WorkDir {
  std::string path;
  WorkDir() {
    std::string tmpl = (fs::temp_directory_path() / "mirage-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
    path = tmpl;
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

Failure testIsolated(const ir::Graph& g, CaseOptions c, double hangSeconds, CaseResult* result = nullptr) {
  WorkDir dir;
  c.workDir = dir.path;
  CaseResult r = runIsolated([&] { return runCase(g, c); }, hangSeconds, dir.path + "/stderr.log");
  if (result) *result = r;
  return r.failure;
}

std::string commentLines(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += "#   " + line + "\n";
  return out;
}

// The flags a reproduction needs besides the file.
std::string replayFlags(const FuzzOptions& o) {
  std::string f = fmt::format(" --time-limit-per-case {}", o.optTimeLimit);
  if (!o.plantBug.empty()) f += " --plant-bug " + o.plantBug;
  if (o.noSearch) f += " --no-search";
  if (o.arch != "sm_80") f += " --arch " + o.arch;
  return f;
}

struct Found {
  int64_t index = 0;
  uint64_t seed = 0;
  ir::Graph program;
  CaseResult result;
  std::string origin;  // how it was found, when not by this run's seed
};

void writeFinding(const FuzzOptions& o, const Found& f, const ir::Graph& shrunk, const ShrinkStats& st,
                  const CaseResult& shrunkResult, std::ostream& out, std::ostream& err) {
  std::error_code ec;
  fs::create_directories(o.findingsDir, ec);
  std::string label(failureLabel(f.result.failure));
  fs::path path = fs::path(o.findingsDir) / fmt::format("{}-{:016x}.mg", label, f.seed);
  std::string text = fmt::format("# mirage-fuzz finding: {}\n", label);
  text += "# what the shrunk program shows:\n" + commentLines(shrunkResult.detail);
  std::string origin = f.origin.empty() ? fmt::format("mirage-fuzz --seed {} (case {})", o.seed, f.index) : f.origin;
  text += fmt::format("# found by: {}; shrunk from {} to {} statements in {} chain runs\n", origin,
                      st.statementsBefore, st.statementsAfter, st.tests);
  text += fmt::format("# reproduce: mirage-fuzz --replay {}{}\n", path.string(), replayFlags(o));
  text += fmt::format("# case-seed: {:#x}\n", f.seed);
  text += ir::printGraph(shrunk);
  std::ofstream file(path, std::ios::binary);
  file << text;
  if (!file) {
    err << fmt::format("mirage-fuzz: error: cannot write {}\n", path.string());
    return;
  }
  out << fmt::format("mirage-fuzz: wrote {} ({} statements, from {})\n", path.string(), st.statementsAfter,
                     st.statementsBefore);
}

void shrinkAndWrite(const FuzzOptions& o, const Found& f, std::ostream& out, std::ostream& err) {
  CaseOptions c = caseOptions(o, f.seed);
  ShrinkStats st;
  out << fmt::format("mirage-fuzz: shrinking case {} ({}, {} statements)\n", f.index, failureLabel(f.result.failure),
                     countStatements(f.program));
  out.flush();
  ir::Graph small = shrink(
      f.program, f.result.failure, [&](const ir::Graph& g) { return testIsolated(g, c, o.hangSeconds); },
      o.maxShrinkTests, &st);
  CaseResult again;
  testIsolated(small, c, o.hangSeconds, &again);
  if (again.failure != f.result.failure) again = f.result;  // a flaky failure: keep what was seen
  writeFinding(o, f, small, st, again, out, err);
}

}  // namespace

int runFuzz(const FuzzOptions& o, std::ostream& out, std::ostream& err) {
  auto start = Clock::now();
  std::string nvcc;
  if (o.nvccEvery > 0) {
    nvcc = findNvcc(o.nvccPath);
    if (nvcc.empty()) err << "mirage-fuzz: warning: no nvcc found; --nvcc-every is ignored\n";
  }
  Sandbox box(o.jobs);
  std::map<int, Found> running;
  std::map<int, std::unique_ptr<WorkDir>> dirs;
  std::vector<Found> found;
  std::map<Failure, int64_t> counts;
  int64_t next = 0, done = 0, fused = 0;
  auto lastReport = Clock::now();
  auto more = [&] {
    if (o.hours > 0) return since(start) < o.hours * 3600 && (o.count <= 0 || next < o.count);
    return next < o.count;
  };
  for (;;) {
    while (more() && !box.full()) {
      Found f;
      f.index = next++;
      f.seed = caseSeed(o.seed, static_cast<uint64_t>(f.index));
      try {
        f.program = generateProgram(f.seed, o.gen);
      } catch (const std::exception& e) {  // a generator bug: report, do not stop
        f.result.failure = Failure::Crash;
        f.result.detail = std::string("the generator failed: ") + e.what();
        ++done;
        ++counts[Failure::Crash];
        out << fmt::format("mirage-fuzz: case {} (seed {:#x}): crash: {}\n", f.index, f.seed, f.result.detail);
        continue;
      }
      CaseOptions c = caseOptions(o, f.seed);
      c.nvcc = !nvcc.empty() && (f.index + 1) % o.nvccEvery == 0;
      c.nvccPath = nvcc;
      int tag = static_cast<int>(f.index);
      c.workDir = (dirs[tag] = std::make_unique<WorkDir>())->path;
      const ir::Graph& program = (running[tag] = std::move(f)).program;
      box.start(tag, [&program, c] { return runCase(program, c); }, o.hangSeconds, c.workDir + "/stderr.log");
    }
    if (box.idle()) break;
    auto [tag, r] = box.wait();
    Found f = std::move(running[tag]);
    running.erase(tag);
    dirs.erase(tag);
    f.result = r;
    ++done;
    fused += r.candidateHasKernels;
    if (o.verbose)
      out << fmt::format("mirage-fuzz: case {} (seed {:#x}, {}, {} statements): {}\n", f.index, f.seed, f.program.name,
                         countStatements(f.program), failureLabel(r.failure));
    if (since(lastReport) > 600) {  // a heartbeat for long runs
      lastReport = Clock::now();
      out << fmt::format("mirage-fuzz: {} programs in {:.0f} min, {} failing so far\n", done, since(start) / 60,
                         found.size() + (r.failure != Failure::None));
    }
    out.flush();  // a long run is watched through a file
    if (r.failure == Failure::None) continue;
    ++counts[r.failure];
    out << fmt::format("mirage-fuzz: case {} (seed {:#x}): {}: {}\n", f.index, f.seed, failureLabel(r.failure),
                       r.detail);
    out.flush();
    found.push_back(std::move(f));
  }
  double seconds = since(start);

  // Shrink the first failures of each kind.
  std::map<Failure, int> shrunk;
  for (const Found& f : found)
    if (shrunk[f.result.failure]++ < o.shrinkPerLabel) shrinkAndWrite(o, f, out, err);

  int64_t failures = 0;
  for (auto& [k, n] : counts) failures += n;
  out << fmt::format("mirage-fuzz: {} programs in {:.1f} s ({:.1f} per minute), {} with custom kernels chosen, {} failing\n",
                     done, seconds, seconds > 0 ? 60.0 * static_cast<double>(done) / seconds : 0.0, fused, failures);
  for (Failure f : allFailures()) out << fmt::format("  {}: {}\n", failureLabel(f), counts[f]);
  return failures > 0 ? 1 : 0;
}

int replayFinding(const std::string& path, const FuzzOptions& o, const uint64_t* caseSeedGiven, bool shrinkIt,
                  std::ostream& out, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << fmt::format("mirage-fuzz: error: cannot open {}\n", path);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  uint64_t seed = 0;
  {
    std::istringstream lines(text.str());
    for (std::string line; std::getline(lines, line);)
      if (line.rfind("# case-seed: ", 0) == 0) seed = std::strtoull(line.c_str() + 13, nullptr, 0);
  }
  if (caseSeedGiven) seed = *caseSeedGiven;
  auto g = parse::parseString(text.str(), path, err);
  if (!g) return 2;
  CaseResult r;
  if (o.inProcess) {
    CaseOptions c = caseOptions(o, seed);
    std::string tmpl = (fs::temp_directory_path() / "mirage-fuzz-replay-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
    c.workDir = tmpl;
    out << fmt::format("mirage-fuzz: the case's files are in {}\n", tmpl);
    out.flush();
    r = runCase(*g, c);
  } else {
    testIsolated(*g, caseOptions(o, seed), o.hangSeconds, &r);
  }
  out << fmt::format("mirage-fuzz: {} (case seed {:#x}): {}\n", path, seed, failureLabel(r.failure));
  if (!r.detail.empty()) out << r.detail << "\n";
  if (shrinkIt && r.failure != Failure::None) {
    Found f;
    f.seed = seed;
    f.program = std::move(*g);
    f.result = r;
    f.origin = "mirage-fuzz --replay " + path;
    shrinkAndWrite(o, f, out, err);
  }
  return r.failure == Failure::None ? 0 : 1;
}

}  // namespace mirage::fuzz
