// mirage-run PROGRAM --in NAME=FILE.npy ... --out NAME=FILE.npy ...
// [--device cpu|cuda] [--seed N]: runs a program on real numbers
// (../shared/spec/cli.md). A .mg program runs on the reference interpreter
// (lib/interp, docs/interpreter.md); a .cu file on the CPU under the host
// shim (lib/codegen) or on a GPU (lib/backend, --device cuda).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>
#include <string>
#include <vector>

#include "mirage/backend/run_cuda.h"
#include "mirage/codegen/host_runner.h"
#include "mirage/interp/run.h"
#include "mirage/parse/parser.h"

namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mirage;
  CLI::App app{"mirage-run: run a .mg program (or a .cu file written by mirage-opt) on .npy inputs"};
  std::string program, device = "cpu";
  std::vector<std::string> ins, outs;
  interp::RunOptions options;
  int verbosity = 0;
  app.add_option("PROGRAM", program, "the program: .mg, or .cu from mirage-opt")->required();
  app.add_option("--in", ins, "NAME=FILE.npy: an input (float16/32/64, C order); inputs not given are filled from --seed")
      ->type_name("NAME=FILE");
  app.add_option("--out", outs, "NAME=FILE.npy: write an output (in the program dtype; bf16 as float32)")
      ->type_name("NAME=FILE");
  app.add_option("--device", device, "where a .cu program runs (default cpu); .mg always runs on the CPU")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--seed", options.seed, "seed for inputs not given (uniform in [-1, 1), default 0)");
  app.add_flag("-v", verbosity, "more logging (-vv: debug)");
  app.add_flag_function("-q", [&](int64_t n) { verbosity -= static_cast<int>(n); }, "less logging");
  app.set_version_flag("--version", std::string("mirage-run ") + MIRAGE_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? interp::kExitOk : interp::kExitBadCommand;
  }
  spdlog::set_pattern("mirage-run: %l: %v");
  spdlog::set_level(verbosity > 1   ? spdlog::level::debug
                    : verbosity > 0 ? spdlog::level::info
                    : verbosity < 0 ? spdlog::level::err
                                    : spdlog::level::warn);

  auto parseNamed = [](const std::vector<std::string>& args, const char* flag,
                       std::vector<interp::NamedFile>& into) {
    for (const std::string& a : args) {
      interp::NamedFile f;
      if (!interp::parseNamedFile(a, f)) {
        std::cerr << "mirage-run: error: " << flag << " expects NAME=FILE, got '" << a << "'\n";
        return false;
      }
      into.push_back(f);
    }
    return true;
  };
  if (!parseNamed(ins, "--in", options.inputs) || !parseNamed(outs, "--out", options.outputs))
    return interp::kExitBadCommand;

  if (endsWith(program, ".cu")) {
    if (device == "cpu") {
      try {  // compiled for the host against the shim (lib/codegen, docs/codegen.md)
        return codegen::runCudaFileOnHost(program, options, std::cout, std::cerr);
      } catch (const std::exception& e) {
        std::cerr << "mirage-run: internal error: " << e.what() << "\n";
        return interp::kExitFailed;
      }
    }
    try {  // device code through NVRTC, launches from the file's plan (lib/backend, docs/backend.md)
      return backend::runCudaFileOnGpu(program, options, std::cout, std::cerr);
    } catch (const std::exception& e) {
      std::cerr << "mirage-run: internal error: " << e.what() << "\n";
      return interp::kExitFailed;
    }
  }
  if (device != "cpu") {
    std::cerr << "mirage-run: error: --device " << device
              << " applies to .cu programs; a .mg program runs on the reference interpreter (CPU)\n";
    return interp::kExitBadCommand;
  }
  try {
    auto graph = parse::parseFile(program, std::cerr);
    if (!graph) return interp::kExitFailed;
    return interp::runProgram(*graph, options, std::cout, std::cerr);
  } catch (const std::exception& e) {  // a bug, not bad input: still no crash
    std::cerr << "mirage-run: internal error: " << e.what() << "\n";
    return interp::kExitFailed;
  }
}
