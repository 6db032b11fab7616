// File-driven codegen test: reads a .mg program, generates CUDA for it (with
// the fast paths and with the simple path for every construct), runs each
// under the host shim on random inputs, and compares the outputs with the
// reference interpreter's. Optionally compiles the file with nvcc.
//
//   codegen_check FILE.mg [--arch N] [--seed N] [--simple-only | --fast-only]
//                 [--hopper] [--nvcc sm_XX ...] [--nvrtc sm_XX ...]
//                 [--expect-error TEXT] [--emit FILE.cu]
//                 [--expect-fast-path TEXT ...] [--scale NAME=F ...] [--ulps N]
//
// --scale NAME=F multiplies input NAME by F instead of 1/4 (e.g. to make
// attention logits large); --ulps N compares within N units in the last
// place of the program dtype, NaN for NaN (see closeUlps) instead of the
// default relative tolerance.
//
// --hopper generates with Options::hopperPaths; a file that takes the Hopper
// path is then run twice under the shim: its TMA/mbarrier branch and, with
// MG_HOPPER_PATH defined to 0, the cp.async branch that sm_80 compiles.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "mirage/codegen/cuda.h"
#include "mirage/codegen/host_runner.h"
#include "mirage/interp/interpreter.h"
#include "mirage/interp/rounding.h"
#include "mirage/parse/parser.h"
#ifdef MIRAGE_HAVE_BACKEND
#include "mirage/backend/launch_plan.h"
#include "mirage/backend/nvrtc.h"
#endif

namespace {

using namespace mirage;

// f16 results are compared within a few units in the last place of f16
// (plus an absolute floor for values near zero): the generated code and the
// interpreter sum in f32 in different orders and round intermediates at
// different points.
// `scale` is the output's root mean square: a sum whose terms cancel is
// only as exact as its largest terms, so the bound grows with the output's
// typical magnitude as well as with the element's own.
bool close(float got, float want, double scale, ir::DType t) {
  double tol = t == ir::DType::F32 ? 1e-3 : t == ir::DType::F16 ? 1e-2 : 4e-2;
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= tol * (1e-3 + std::fabs(want) + scale);
}

// The spacing of the program dtype's values at |x| (its unit in the last
// place; the subnormal spacing below the normal range).
double ulpOf(double x, ir::DType t) {
  int mant = t == ir::DType::F32 ? 23 : t == ir::DType::F16 ? 10 : 7;
  int minExp = t == ir::DType::F32 ? -126 : t == ir::DType::F16 ? -14 : -126;
  int e = x == 0 ? minExp : std::max(std::ilogb(x), minExp);
  return std::ldexp(1.0, e - mant);
}

// Within `ulps` units in the last place of the output's largest finite
// magnitude, NaN for NaN, infinities equal. Not of each element's own
// magnitude: a small element is a difference of larger terms (partial
// results stored in the dtype, summed in another order), so it is only as
// exact as they are.
bool closeUlps(float got, float want, double largest, ir::DType t, int ulps) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  double at = std::max<double>(std::fabs(want), largest);
  return std::fabs(double(got) - want) <= ulps * ulpOf(at, t);
}

int compareOutputs(const ir::Graph& g, const std::vector<interp::Tensor>& got,
                   const std::vector<interp::Tensor>& want, const std::string& label, int ulps) {
  int bad = 0;
  for (size_t o = 0; o < want.size(); ++o) {
    int badHere = 0;
    double sq = 0;
    for (float x : want[o].data) sq += std::isfinite(x) ? double(x) * x : 0.0;
    double scale = want[o].data.empty() ? 0.0 : std::sqrt(sq / static_cast<double>(want[o].data.size()));
    double largest = 0;
    int64_t nonFinite = 0;
    for (float x : want[o].data) {
      if (std::isfinite(x)) largest = std::max<double>(largest, std::fabs(x));
      else ++nonFinite;
    }
    if (ulps > 0)
      std::cout << fmt::format("{}: output {}: {} of {} interpreter elements are inf or NaN, largest finite {}\n", label,
                               g.value(g.outputs[o]).name, nonFinite, want[o].size(), largest);
    for (int64_t i = 0; i < want[o].size(); ++i) {
      float a = got[o].data[static_cast<size_t>(i)], b = want[o].data[static_cast<size_t>(i)];
      if (ulps > 0 ? closeUlps(a, b, largest, g.dtype, ulps) : close(a, b, scale, g.dtype)) continue;
      ++bad;
      if (badHere++ < 3)
        std::cerr << fmt::format("{}: output {} differs at flat index {}: got {}, interpreter {}\n", label,
                                 g.value(g.outputs[o]).name, i, a, b);
    }
  }
  return bad;
}

// One nvcc run for all requested architectures (-gencode per target), as
// a user would compile the file with `nvcc -arch=sm_XX -c`.
int compileWithNvcc(const std::string& source, const std::vector<std::string>& archs, const std::string& dir) {
  static int counter = 0;
  std::string cu = fmt::format("{}/mirage_check_{}_{}.cu", dir, getpid(), counter++);
  std::ofstream(cu) << source;
  std::string gencode;
  for (const std::string& a : archs) {
    std::string n = a.substr(a.find('_') + 1);
    gencode += fmt::format(" -gencode arch=compute_{0},code=sm_{0}", n);
  }
  std::string cmd = fmt::format("/usr/local/cuda/bin/nvcc{} -c {} -o {}.o 2>&1", gencode, cu, cu);
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    std::cerr << "nvcc failed: " << cmd << "\n";
  } else {
    std::remove(cu.c_str());
    std::remove((cu + ".o").c_str());
  }
  return rc;
}

// The launch plan must read back (the backend replays it on a GPU), and
// NVRTC must compile the device code for each requested architecture.
int checkWithBackend(const std::string& source, const std::vector<std::string>& nvrtcArchs,
                     const std::string& label) {
#ifdef MIRAGE_HAVE_BACKEND
  int failures = 0;
  std::string error;
  if (!backend::parseLaunchPlan(source, &error)) {
    std::cerr << label << ": the launch plan does not parse: " << error << "\n";
    ++failures;
  }
  if (!nvrtcArchs.empty() && backend::Compiler::available()) {
    backend::CompilerOptions co;
    co.useCache = false;
    backend::Compiler compiler(co);
    for (const std::string& arch : nvrtcArchs) {
      backend::CompileRequest req;
      req.source = source;
      req.arch = arch;
      req.label = label;
      backend::CompileResult r = compiler.compile(req);
      if (!r.ok) {
        std::cerr << label << ": NVRTC (" << arch << ") failed: " << r.error << "\n" << r.log << "\n";
        ++failures;
      }
    }
  }
  return failures;
#else
  (void)source;
  (void)nvrtcArchs;
  (void)label;
  return 0;
#endif
}

// `source` with "#define TEXT" inserted after its header comment (which
// the host runner reads), i.e. before the includes and helpers.
std::string withDefineAfterHeader(const std::string& source, const std::string& text) {
  size_t pos = 0;
  while (source.compare(pos, 2, "//") == 0) pos = source.find('\n', pos) + 1;
  return source.substr(0, pos) + "#define " + text + "\n" + source.substr(pos);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path, expectError, emit;
  std::vector<std::string> nvccArchs, nvrtcArchs, expectFast;
  std::vector<std::pair<std::string, float>> scales;
  int ulps = 0;
  int arch = 90;
  uint64_t seed = 1;
  bool simpleOnly = false, fastOnly = false, hopper = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "missing value after " << a << "\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--arch") arch = std::stoi(next());
    else if (a == "--seed") seed = std::stoull(next());
    else if (a == "--simple-only") simpleOnly = true;
    else if (a == "--fast-only") fastOnly = true;
    else if (a == "--hopper") hopper = true;
    else if (a == "--nvcc") nvccArchs.push_back(next());
    else if (a == "--nvrtc") nvrtcArchs.push_back(next());
    else if (a == "--expect-error") expectError = next();
    else if (a == "--expect-fast-path") expectFast.push_back(next());
    else if (a == "--emit") emit = next();
    else if (a == "--ulps") ulps = std::stoi(next());
    else if (a == "--scale") {
      std::string v = next();
      size_t eq = v.find('=');
      if (eq == std::string::npos) {
        std::cerr << "--scale takes NAME=FACTOR\n";
        return 2;
      }
      scales.emplace_back(v.substr(0, eq), std::stof(v.substr(eq + 1)));
    }
    else path = a;
  }
  auto program = parse::parseFile(path, std::cerr);
  if (!program) return 1;

  // Random inputs in [-1/4, 1/4) (the interpreter's, scaled exactly): at
  // full range, exp of a 64-long dot product already overflows f16. A
  // --scale factor replaces the 1/4 (the scaled values rounded to the dtype).
  std::vector<interp::Tensor> inputs;
  for (ir::ValueId v : program->inputs) {
    const std::string& name = program->value(v).name;
    inputs.push_back(interp::randomTensor(program->value(v).shape, program->dtype, seed, name));
    float factor = 0.25f;
    for (const auto& [n, f] : scales)
      if (n == name) factor = f;
    for (float& x : inputs.back().data) x = interp::roundToDType(x * factor, program->dtype);
  }
  for (const auto& [n, f] : scales)
    if (program->findValue(n) == ir::kNoValue) {
      std::cerr << "--scale names no input '" << n << "'\n";
      return 2;
    }
  std::vector<interp::Tensor> want = interp::evaluate(*program, inputs);

  int failures = 0;
  for (bool fast : {true, false}) {
    if ((fast && simpleOnly) || (!fast && fastOnly)) continue;
    codegen::Options opt;
    opt.smArch = arch;
    opt.sourceName = path;
    opt.fastPaths = fast;
    opt.hopperPaths = hopper;
    codegen::Result res = codegen::generateCuda(*program, opt);
    std::string label = fmt::format("{} ({} path)", path, fast ? "fast" : "simple");
    if (!expectError.empty()) {
      if (res.ok || res.error.find(expectError) == std::string::npos) {
        std::cerr << label << ": expected an error containing '" << expectError << "', got "
                  << (res.ok ? "success" : "'" + res.error + "'") << "\n";
        return 1;
      }
      continue;
    }
    if (!res.ok) {
      std::cerr << label << ": generateCuda failed: " << res.error << "\n";
      return 1;
    }
    if ((fast || simpleOnly) && !emit.empty()) std::ofstream(emit) << res.source;
    if (fast)
      for (const std::string& f : expectFast) {
        bool found = false;
        for (const auto& k : res.kernels)
          for (const auto& p : k.fastPaths) found = found || p.find(f) != std::string::npos;
        if (!found) {
          std::cerr << label << ": expected fast path '" << f << "' to be used\n";
          ++failures;
        }
      }
    failures += checkWithBackend(res.source, nvrtcArchs, label);
    // The file as generated; with the Hopper path also its sm_80 branch. A
    // --hopper file the option did not change (no staged tiles) is the file
    // the plain run checks: it is compiled as asked but not run again.
    std::vector<std::pair<std::string, std::string>> variants = {{label, res.source}};
    if (res.source.find("#if MG_HOPPER_PATH") != std::string::npos) {
      variants.emplace_back(label + " [sm_80 branch]", withDefineAfterHeader(res.source, "MG_HOPPER_PATH 0"));
    } else if (hopper) {
      codegen::Options plain = opt;
      plain.hopperPaths = false;
      if (codegen::generateCuda(*program, plain).source == res.source) {
        std::cout << label << ": no Hopper path here; the file is the one without --hopper\n";
        variants.clear();
      }
    }
    for (const auto& [variantLabel, source] : variants) {
      std::string error;
      auto module = codegen::HostModule::build(source, error);
      if (!module) {
        std::cerr << variantLabel << ": " << error << "\n";
        return 1;
      }
      std::vector<interp::Tensor> got;
      if (std::string e = module->run(inputs, got); !e.empty()) {
        std::cerr << variantLabel << ": " << e << "\n";
        return 1;
      }
      int bad = compareOutputs(*program, got, want, variantLabel, ulps);
      if (bad) std::cerr << variantLabel << ": " << bad << " elements differ\n";
      failures += bad;
    }
    if (!nvccArchs.empty()) {
      std::string dir = std::filesystem::temp_directory_path().string();
      failures += compileWithNvcc(res.source, nvccArchs, dir) != 0;
    }
  }
  if (failures == 0) std::cout << path << ": ok\n";
  return failures == 0 ? 0 : 1;
}
