// The fuzz component owns mirage-fuzz, the differential fuzzer of the whole
// pipeline (docs/testing.md): it generates random well-typed `.mg` programs
// from a seed (generate.h), runs each through the oracle chain in a forked
// child (oracle.h, sandbox.h) — mirage-opt with a small time limit, the
// verifier again with a second seed, the chosen candidate on the
// interpreter and its .cu on the CPU shim, all against a float64 evaluation
// of the input — labels every way that chain fails, shrinks each failing
// program by delta debugging to a small one that fails the same way
// (shrink.h), and writes it with the command that reproduces it. It only
// reads the other components' public APIs; a planted bug for tests perturbs
// their outputs inside the oracle, not their code. tools/mirage-fuzz.cpp is
// its thin main. (The libFuzzer harness of the parser is fuzz/ at the top
// level, a different thing.)
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "mirage/fuzz/generate.h"
#include "mirage/fuzz/oracle.h"

namespace mirage::fuzz {

struct FuzzOptions {
  uint64_t seed = 0;
  int64_t count = 100;          // programs; with hours > 0, the bound is the clock (count 0 = no bound)
  double hours = 0;             // --hours: run until this much time has passed
  double optTimeLimit = 2;      // --time-limit-per-case: mirage-opt --time-limit
  double hangSeconds = 90;      // a case still running after this is a hang
  std::string findingsDir = "fuzz/findings";
  int jobs = 1;                 // cases in parallel (each child runs mirage-opt with one job)
  int64_t nvccEvery = 0;        // compile every Nth written .cu with nvcc (0: never)
  std::string nvccPath;         // "" = nvcc on PATH, else /usr/local/cuda/bin/nvcc
  std::string arch = "sm_80";
  std::string plantBug;         // test only: see plantableBugs()
  bool noSearch = false;        // mirage-opt --no-search: a fast chain for tests
  int shrinkPerLabel = 1;       // failing programs shrunk per label (the others are listed)
  int maxShrinkTests = 80;      // chain runs one shrink may use
  bool verbose = false;         // a line per case
  bool inProcess = false;       // --replay without a child process (for gdb and valgrind)
  GenOptions gen;
};

// Runs the fuzzer; prints failures as they are found, then one summary line
// per failure kind. Returns 1 when it found any failure, else 0.
int runFuzz(const FuzzOptions& options, std::ostream& out, std::ostream& err);

// mirage-fuzz --replay FILE: the chain on one program (a finding), with the
// case seed its header names unless `caseSeed` is given. Prints the label;
// with `shrink`, a failure is shrunk and written to the findings directory
// as a run's would be. Returns 1 when the chain fails, 0 when it passes, 2
// when FILE is unusable.
int replayFinding(const std::string& path, const FuzzOptions& options, const uint64_t* caseSeed, bool shrink,
                  std::ostream& out, std::ostream& err);

}  // namespace mirage::fuzz
