// mirage-opt INPUT.mg -o KERNEL.cu [options]: the superoptimizer's command
// line (../shared/spec/cli.md). Fills driver::Options and calls the driver.
#include <CLI/CLI.hpp>

#include <iostream>

#include "mirage/driver/driver.h"

int main(int argc, char** argv) {
  mirage::driver::Options opt;
  CLI::App app{"mirage-opt: finds a faster equivalent μGraph of a tensor program and writes it as CUDA"};
  app.set_version_flag("--version", std::string("mirage-opt ") + MIRAGE_VERSION);
  app.add_option("input", opt.input, "input program (.mg), or - for standard input")->required();
  app.add_option("-o", opt.output, "the best program as CUDA C++ (- for standard output)");
  app.add_option("--emit-mg", opt.emitMg, "the best program as .mg");
  app.add_option("--dump-candidates", opt.dumpDir, "write every verified candidate (NNN.mg, NNN.cu, summary.json)");
  app.add_option("--report", opt.report, "a JSON report of the run");
  app.add_option("--time-limit", opt.timeLimitSeconds, "wall-clock bound on the whole run, in seconds")
      ->check(CLI::PositiveNumber);
  app.add_option("--jobs", opt.jobs, "worker threads (default: all cores)")->check(CLI::PositiveNumber);
  app.add_option("--device", opt.device, "auto, cuda or none")->check(CLI::IsMember({"auto", "cuda", "none"}));
  app.add_option("--arch", opt.arch, "target architecture, e.g. sm_80 or sm_90");
  app.add_option("--seed", opt.seed, "seed that makes the run reproducible");
  app.add_option("--cache-dir", opt.cacheDir, "where search results are kept between runs");
  app.add_flag("--no-cache", opt.noCache, "neither read nor write the result cache");
  app.add_flag("--no-search", opt.noSearch, "take the input as it is: check, lower and write it");
  app.add_option("--max-kernels", opt.limits.maxKernels, "custom kernels per μGraph (search limit)")
      ->check(CLI::Range(1, 8));
  app.add_option("--max-block-ops", opt.limits.maxBlockOps, "operators per kernel body (search limit)")
      ->check(CLI::Range(1, 64));
  app.add_option("--max-discrepancies", opt.limits.maxDiscrepancies,
                 "body values per μGraph that are not terms of the input program (search limit)")
      ->check(CLI::Range(0, 16));
  app.add_flag("--allow-unguarded-exp", opt.limits.allowUnguardedExp,
               "let candidates drop an overflow guard of the input (exp of a value minus its maximum)");
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "log errors only");
  app.add_flag("-v,--verbose", verbose, "log more");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return e.get_exit_code() == 0 ? rc : 2;
  }
  opt.verbosity = quiet ? -1 : verbose ? 1 : 0;
  return mirage::driver::runMirageOpt(opt, std::cout, std::cerr);
}
