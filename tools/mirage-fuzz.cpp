// mirage-fuzz --seed S --count N [--hours H] [--time-limit-per-case T]
// [--findings DIR] [--jobs J] [--nvcc-every N] ...: the differential fuzzer
// of the whole pipeline (lib/fuzz, docs/testing.md). Also
// `mirage-fuzz --replay FINDING.mg` to rerun one program.
#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "mirage/fuzz/fuzz.h"

int main(int argc, char** argv) {
  using namespace mirage;
  CLI::App app{"mirage-fuzz: random programs through mirage-opt, the verifier, the interpreter and the CPU shim, "
               "checked against float64; failures are shrunk and written to the findings directory"};
  fuzz::FuzzOptions o;
  std::string replay, plant;
  uint64_t replaySeed = 0;
  app.add_option("--seed", o.seed, "run seed (default 0); case i uses a seed mixed from it and i");
  app.add_option("--count", o.count, "programs to run (default 100; with --hours, an upper bound, 0 = none)");
  app.add_option("--hours", o.hours, "run until this many hours have passed");
  app.add_option("--time-limit-per-case", o.optTimeLimit, "mirage-opt --time-limit per program, seconds (default 2)");
  app.add_option("--hang-seconds", o.hangSeconds, "a case running longer is killed and labeled hang (default 90)");
  app.add_option("--findings", o.findingsDir, "where shrunk failures are written (default fuzz/findings)");
  app.add_option("--jobs", o.jobs, "cases in parallel (default 1)")->check(CLI::Range(1, 256));
  app.add_option("--nvcc-every", o.nvccEvery, "compile every Nth written .cu with nvcc -c (default 0: never)");
  app.add_option("--nvcc", o.nvccPath, "the nvcc to use (default: on PATH, else /usr/local/cuda/bin/nvcc)");
  app.add_option("--arch", o.arch, "mirage-opt --arch, and nvcc's -arch (default sm_80)");
  app.add_option("--max-shrink-tests", o.maxShrinkTests, "chain runs one shrink may use (default 80)");
  app.add_option("--shrink-per-label", o.shrinkPerLabel, "failing programs shrunk per failure kind (default 1)");
  app.add_option("--max-random-ops", o.gen.maxRandomOps, "random operations beyond the motif (default 8)");
  app.add_flag("--no-search", o.noSearch, "mirage-opt --no-search (a fast chain, for tests)");
  app.add_option("--plant-bug", o.plantBug, "test only: plant a bug in the chain (codegen-exp, verifier-mul)")
      ->check(CLI::IsMember(fuzz::plantableBugs()));
  auto* replayOpt = app.add_option("--replay", replay, "rerun the chain on one program (a finding) and print its label");
  auto* seedOpt = app.add_option("--case-seed", replaySeed, "with --replay: the case seed (default: the file's)");
  seedOpt->needs(replayOpt);
  bool shrinkReplay = false;
  app.add_flag("--shrink", shrinkReplay, "with --replay: shrink a failure and write it to --findings")->needs(replayOpt);
  app.add_flag("--in-process", o.inProcess, "with --replay: run the chain in this process (for gdb, valgrind)")
      ->needs(replayOpt);
  app.add_flag("-v", o.verbose, "a line per case");
  app.set_version_flag("--version", std::string("mirage-fuzz ") + MIRAGE_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (!replay.empty())
      return fuzz::replayFinding(replay, o, seedOpt->count() ? &replaySeed : nullptr, shrinkReplay, std::cout, std::cerr);
    return fuzz::runFuzz(o, std::cout, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "mirage-fuzz: internal error: " << e.what() << "\n";
    return 2;
  }
}
