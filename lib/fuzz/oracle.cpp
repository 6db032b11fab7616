// The oracle chain (oracle.h). Each stage runs through the libraries, as the
// tools would run it, on files in the case's work directory; the first
// failure found, in the order of the checks below, is the case's label.
#include "mirage/fuzz/oracle.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "compare.h"
#include "mirage/codegen/host_runner.h"
#include "mirage/driver/driver.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/reference64.h"
#include "mirage/interp/rounding.h"
#include "mirage/ir/check.h"
#include "mirage/ir/printer.h"
#include "mirage/parse/parser.h"
#include "mirage/verify/verifier.h"

namespace mirage::fuzz {

namespace fs = std::filesystem;

std::string_view failureLabel(Failure f) {
  switch (f) {
    case Failure::None: return "none";
    case Failure::WrongEquivalent: return "wrong-equivalent";
    case Failure::ReverifyFailed: return "reverify-failed";
    case Failure::Crash: return "crash";
    case Failure::Hang: return "hang";
    case Failure::OptFailed: return "opt-failed";
    case Failure::MalformedOutput: return "malformed-output";
    case Failure::NumericallyWorse: return "numerically-worse";
    case Failure::InterpShimMismatch: return "interp-shim-mismatch";
    case Failure::NvccFailure: return "nvcc-failure";
  }
  return "unknown";
}

std::vector<Failure> allFailures() {
  std::vector<Failure> all;
  for (int f = static_cast<int>(Failure::WrongEquivalent); f <= static_cast<int>(Failure::NvccFailure); ++f)
    all.push_back(static_cast<Failure>(f));
  return all;
}

bool failureFromLabel(std::string_view label, Failure& out) {
  for (Failure f : allFailures())
    if (failureLabel(f) == label) {
      out = f;
      return true;
    }
  return false;
}

std::vector<std::string> plantableBugs() { return {"codegen-exp", "verifier-mul"}; }

namespace {

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// The last lines of a tool's diagnostics, for a one-screen detail.
std::string tail(const std::string& text, size_t maxChars = 600) {
  if (text.size() <= maxChars) return text;
  return "..." + text.substr(text.size() - maxChars);
}

bool replaceFirst(std::string& text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  if (at == std::string::npos) return false;
  text.replace(at, from.size(), to);
  return true;
}

ir::Graph atF32(ir::Graph g) {
  g.dtype = ir::DType::F32;
  return g;
}

struct Chain {
  const ir::Graph& program;
  const CaseOptions& opt;
  fs::path dir;
  ir::Graph candidate;
  std::string cu;

  CaseResult fail(Failure f, std::string detail) {
    CaseResult r;
    r.failure = f;
    r.detail = std::move(detail);
    return r;
  }

  CaseResult run() {
    std::string why;
    if (!parse::roundTrips(program, &why))
      return fail(Failure::MalformedOutput, "the input program does not round-trip through the printer: " + tail(why));
    writeFile(dir / "input.mg", ir::printGraph(program));

    // 1. mirage-opt --device none --no-cache --time-limit T --seed S.
    driver::Options d;
    d.input = (dir / "input.mg").string();
    d.output = (dir / "cand.cu").string();
    d.emitMg = (dir / "cand.mg").string();
    d.timeLimitSeconds = opt.optTimeLimit;
    d.jobs = 1;
    d.device = "none";
    d.arch = opt.arch;
    d.seed = opt.seed & 0xffffffffu;
    d.cacheDir = (dir / "cache").string();
    d.noCache = true;
    d.noSearch = opt.noSearch;
    d.verbosity = -1;
    std::ostringstream out, err;
    int rc = driver::runMirageOpt(d, out, err);
    if (rc != 0) return fail(Failure::OptFailed, fmt::format("mirage-opt exited {}: {}", rc, tail(err.str())));
    if (!fs::exists(dir / "cand.mg") || !fs::exists(dir / "cand.cu"))
      return fail(Failure::OptFailed, "mirage-opt exited 0 without writing both outputs");

    std::string mg = readFile(dir / "cand.mg");
    cu = readFile(dir / "cand.cu");
    if (opt.plantBug == "verifier-mul") {
      // The first mul becomes an add; a candidate without mul gets its
      // first add turned into a sub instead.
      replaceFirst(mg, "= mul(", "= add(") || replaceFirst(mg, "= add(", "= sub(");
    } else if (opt.plantBug == "codegen-exp") {
      if (!replaceFirst(cu, "mg_exp(float x) { return expf(x); }", "mg_exp(float x) { return exp2f(x); }"))
        throw std::logic_error("--plant-bug codegen-exp: mg_exp is not in the .cu text any more");
    } else if (!opt.plantBug.empty()) {
      throw std::logic_error("unknown planted bug '" + opt.plantBug + "'");
    }
    parse::Diagnostics diags("cand.mg", mg);
    auto parsed = parse::parseProgram(mg, diags);
    if (!parsed) return fail(Failure::MalformedOutput, "the written .mg does not parse back:\n" + tail(diags.str()));
    if (ir::Error e = ir::checkProgram(*parsed); !e.empty())
      return fail(Failure::MalformedOutput, "the written .mg is not legal: " + e);
    candidate = std::move(*parsed);

    // 2. The verifier again, with a second seed.
    verify::Options vo;
    vo.seed = opt.seed ^ 0x5eedf00dULL;
    vo.threads = 1;
    vo.cacheBytes = size_t{64} << 20;
    verify::Cancel cancel;
    cancel.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    verify::Verdict verdict = verify::Verifier(program, vo).check(candidate, cancel);
    bool reverified = verdict.equivalent || verdict.cancelled;

    // 3.-5. Numbers.
    std::unique_ptr<codegen::HostModule> module = codegen::HostModule::build(cu, why);
    if (!module) return fail(Failure::MalformedOutput, "the written .cu does not build for the CPU shim: " + tail(why));

    CaseResult worse, mismatch, wrong;
    for (const InputFamily& family : inputFamilies(program.dtype)) {
      std::vector<interp::Tensor> inputs = familyInputs(program, family, opt.seed);
      std::vector<interp::Tensor64> ref = interp::evaluate64(program, inputs);
      bool refFinite = allFinite(ref);
      // Equivalence: both programs in f32 against float64, on the family of
      // moderate inputs only (at large magnitudes f32 itself overflows).
      if (family.moderate && refFinite && wrong.failure == Failure::None) {
        auto in32 = interp::evaluate(atF32(program), inputs);
        auto cand32 = interp::evaluate(atF32(candidate), inputs);
        for (size_t o = 0; o < ref.size(); ++o) {
          double ei = relativeError(in32[o], ref[o]), ec = relativeError(cand32[o], ref[o]);
          if (std::isfinite(ei) && allFinite(cand32[o]) && ec > kEquivalenceTolerance && ec > 64 * ei) {
            wrong = fail(Failure::WrongEquivalent,
                         fmt::format("output {} ({}): in f32 the candidate's error against float64 is {:.3g}, the "
                                     "input's {:.3g}; the second verifier run says {}",
                                     o, program.value(program.outputs[o]).name, ec, ei,
                                     verdict.equivalent ? "equivalent" : "not equivalent: " + verdict.message));
            break;
          }
        }
      }
      // Numerics at the program dtype.
      auto inD = interp::evaluate(program, inputs);
      auto candD = interp::evaluate(candidate, inputs);
      if (refFinite && worse.failure == Failure::None) {
        double floor = kWorseFloorUlps * dtypeEpsilon(program.dtype);
        // The input program on nudged inputs, when needed.
        std::vector<std::vector<interp::Tensor>> nudged;
        for (size_t o = 0; o < ref.size(); ++o) {
          double ei = relativeError(inD[o], ref[o]), ec = relativeError(candD[o], ref[o]);
          if (!std::isfinite(ei) || ec <= kWorseFactor * ei + floor) continue;
          // The input's error may be small by luck where the output hangs
          // on rounding (compare.h, nudgedInputs): its largest error over a
          // few nudges of the inputs is what the candidate is held to.
          double en = 0;
          for (int k = 0; k < kNudges && !(std::isfinite(en) && ec <= kWorseFactor * en + floor); ++k) {
            if (nudged.size() <= static_cast<size_t>(k))
              nudged.push_back(interp::evaluate(program, nudgedInputs(inputs, program.dtype, opt.seed + k)));
            double e = relativeError(nudged[static_cast<size_t>(k)][o], ref[o]);
            if (std::isfinite(e)) en = std::max(en, e);
          }
          if (ec <= kWorseFactor * en + floor) continue;
          worse = fail(Failure::NumericallyWorse,
                       fmt::format("inputs '{}': output {} ({}): error against float64 {:.3g} for the candidate, "
                                   "{:.3g} for the input program (at most {:.3g} on inputs moved by one unit of the dtype)",
                                   family.name, o, program.value(program.outputs[o]).name, ec, ei, en));
          break;
        }
      }
      // The .cu on the shim against the interpreter on the same candidate.
      std::vector<interp::Tensor> shim;
      if (std::string e = module->run(inputs, shim); !e.empty())
        return fail(Failure::MalformedOutput, "the written .cu does not run on the CPU shim: " + e);
      if (shim.size() != candD.size())
        return fail(Failure::MalformedOutput, "the .cu returned a different number of outputs");
      if (mismatch.failure == Failure::None) {
        for (size_t o = 0; o < shim.size(); ++o) {
          // The float64 value where it is finite (another output of the
          // program may overflow); firstMismatch uses it element by element.
          std::string where = firstMismatch(candD[o], shim[o], &ref[o], program.dtype);
          if (!where.empty()) {
            mismatch = fail(Failure::InterpShimMismatch,
                            fmt::format("inputs '{}': output {} ({}): {}", family.name, o,
                                        program.value(program.outputs[o]).name, where));
            break;
          }
        }
      }
    }
    if (wrong.failure != Failure::None) return wrong;
    if (!reverified)
      return fail(Failure::ReverifyFailed, "the verifier with a second seed: " + verdict.message);
    if (worse.failure != Failure::None) return worse;
    if (mismatch.failure != Failure::None) return mismatch;

    // 6. nvcc, when sampled.
    if (opt.nvcc) {
      writeFile(dir / "cand.cu", cu);
      std::string cmd = fmt::format("'{}' -arch={} -c '{}' -o '{}' > '{}' 2>&1", opt.nvccPath, opt.arch,
                                    (dir / "cand.cu").string(), (dir / "cand.o").string(), (dir / "nvcc.log").string());
      int status = std::system(cmd.c_str());
      if (status != 0)
        return fail(Failure::NvccFailure,
                    fmt::format("nvcc -arch={} -c failed ({}): {}", opt.arch,
                                WIFEXITED(status) ? fmt::format("exit status {}", WEXITSTATUS(status))
                                                  : fmt::format("wait status {}", status),
                                tail(readFile(dir / "nvcc.log"))));
    }
    CaseResult ok;
    ok.candidateHasKernels = std::any_of(candidate.ops.begin(), candidate.ops.end(),
                                         [](const ir::Op& o) { return o.kind == ir::OpKind::Kernel; });
    return ok;
  }
};

}  // namespace

CaseResult runCase(const ir::Graph& program, const CaseOptions& options) {
  fs::path dir = options.workDir;
  bool made = false;
  if (dir.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "mirage-fuzz-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
    dir = tmpl;
    made = true;
  } else {
    fs::create_directories(dir);
  }
  CaseResult r;
  try {
    Chain chain{program, options, dir, {}, {}};
    r = chain.run();
  } catch (const std::exception& e) {
    r.failure = Failure::Crash;
    r.detail = std::string("uncaught exception: ") + e.what();
  }
  if (made && !options.keepFiles) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return r;
}

}  // namespace mirage::fuzz
