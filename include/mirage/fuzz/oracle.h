// The oracle chain of mirage-fuzz for one program: mirage-opt (device none,
// small time limit, no cache) chooses a candidate; the verifier checks it
// again with a second seed; the chosen .mg runs on the interpreter and the
// written .cu on the CPU shim; both are compared with the input program
// evaluated in float64, on random inputs and on inputs at large magnitudes.
// Each way the chain can fail has its own label (Failure).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::fuzz {

enum class Failure {
  None,
  WrongEquivalent,     // proven equivalent, but the float64 outputs differ beyond rounding
  ReverifyFailed,      // the verifier with a second seed does not prove the chosen candidate
  Crash,               // the case's process died (signal, abort, uncaught exception)
  Hang,                // the case's process ran past its time limit
  OptFailed,           // mirage-opt rejected a legal program or wrote no output
  MalformedOutput,     // the written .mg does not parse back, or the .cu does not build/run
  NumericallyWorse,    // the candidate's error at the program dtype far above the input's
  InterpShimMismatch,  // interpreter and CPU shim disagree on the chosen candidate beyond a few ulps
  NvccFailure,         // nvcc rejects the written .cu (sampled)
};
std::string_view failureLabel(Failure f);     // "wrong-equivalent", ...
std::vector<Failure> allFailures();           // every label but None, in enum order
bool failureFromLabel(std::string_view label, Failure& out);

// A failure that a test plants in the chain, to show what the fuzzer and the
// shrinker do with one (the components themselves are untouched: the
// oracle perturbs what they produced).
//   "codegen-exp":  the written .cu computes exp as exp2 (an operator's
//                   code generation is wrong: interp-shim-mismatch);
//   "verifier-mul": the first mul of the chosen candidate (else its first add)
//                   becomes an add (a sub) after the driver proved it (a wrong
//                   verifier rule: wrong-equivalent).
std::vector<std::string> plantableBugs();

struct CaseOptions {
  uint64_t seed = 0;             // the case seed: driver seed, second verifier seed and input data
  double optTimeLimit = 2;       // mirage-opt --time-limit (seconds)
  bool noSearch = false;         // mirage-opt --no-search (the input lowered per operator): fast, for tests
  std::string arch = "sm_80";    // mirage-opt --arch; also nvcc's -arch
  bool nvcc = false;             // compile the written .cu with nvcc -c
  std::string nvccPath = "nvcc";
  std::string plantBug;          // one of plantableBugs(), or empty
  std::string workDir;           // where the case's files go (created; empty = a fresh temporary)
  bool keepFiles = false;        // leave workDir behind
};

struct CaseResult {
  Failure failure = Failure::None;
  std::string detail;            // one or a few lines: what differed, where
  bool candidateHasKernels = false;
};

// Runs the chain on `program` in this process. Exceptions from the
// components become a Crash result; a real crash or hang needs the sandbox
// (sandbox.h).
CaseResult runCase(const ir::Graph& program, const CaseOptions& options);

}  // namespace mirage::fuzz
