// mirage-bench's verify section (see bench.h).
#include "mirage/verify/bench.h"

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "mirage/verify/fingerprint.h"
#include "tensor_ops.h"

namespace mirage::verify {

Measurement measureMulAddRate(double seconds) {
  Trial trial(1, 0, 0);
  FTensor a = trial.input("a", {256, 64});
  FTensor b = trial.input("b", {64, 4096});
  a.q.clear();  // one lane: the rate of a single field
  b.q.clear();
  ir::Op op;
  op.kind = ir::OpKind::Matmul;
  FTensor c;
  const double macs = 256.0 * 64 * 4096;
  double total = 0, cpu = 0;
  std::clock_t start = std::clock();
  while (cpu < seconds) {
    applyOp(op, {&a, &b}, {256, 4096}, trial, nullptr, c);
    total += macs;
    cpu = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  }
  return {"field multiply-adds per second per core", total / cpu, "MAC/s"};
}

std::vector<Measurement> measureCheck(const std::string& name, const ir::Graph& reference,
                                      const ir::Graph& candidate, const Options& options,
                                      int repeats) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  // CPU seconds of the whole process (all threads): on a loaded machine the
  // wall times vary by a factor of two between runs, the CPU times do not.
  auto cpuSeconds = [](std::clock_t c0) { return static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC; };
  double oneShot = 1e30, candidateOnly = 1e30, oneShotCpu = 1e30, candidateCpu = 1e30;
  Verdict verdict;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    std::clock_t c0 = std::clock();
    verdict = checkEquivalent(reference, candidate, options);
    oneShot = std::min(oneShot, seconds(t0));
    oneShotCpu = std::min(oneShotCpu, cpuSeconds(c0));
  }
  if (!verdict.equivalent)
    throw std::runtime_error(name + ": the pair is not equivalent: " + verdict.message);
  Options warm = options;
  // No reuse of the candidate's own fingerprints; the inputs, drawn once per
  // trial, stay shared (Options::inputBytes), as in the search.
  warm.cacheBytes = 0;
  Verifier verifier(reference, warm);
  verifier.check(candidate);  // computes the reference's fingerprints
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    std::clock_t c0 = std::clock();
    verifier.check(candidate);
    candidateOnly = std::min(candidateOnly, seconds(t0));
    candidateCpu = std::min(candidateCpu, cpuSeconds(c0));
  }
  // The search's case: the fingerprint cache holds the reference's values
  // (its prefixes and products are reused), the candidate is new, and it is
  // pre-checked and checked as the search does (screenAndCheck). A fresh
  // verifier per repeat, so that the candidate never meets its own values.
  double searchCase = 1e30, searchCaseCpu = 1e30;
  for (int r = 0; r < repeats; ++r) {
    Verifier fresh(reference, options);
    fresh.check(reference);
    auto t0 = Clock::now();
    std::clock_t c0 = std::clock();
    bool screenedOut = false;
    fresh.screenAndCheck(candidate, {}, &screenedOut);
    searchCase = std::min(searchCase, seconds(t0));
    searchCaseCpu = std::min(searchCaseCpu, cpuSeconds(c0));
  }
  double pre = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = Clock::now();
    if (!verifier.precheck(candidate)) throw std::runtime_error(name + ": the pre-check rejects the pair");
    pre = std::min(pre, seconds(t0));
  }
  return {{name + ": one-shot check (both programs)", oneShot, "s"},
          {name + ": one-shot check, CPU (all threads)", oneShotCpu, "s"},
          {name + ": candidate check (reference cached)", candidateOnly, "s"},
          {name + ": candidate check, CPU (all threads)", candidateCpu, "s"},
          {name + ": new candidate, reference in the fingerprint cache, pre-check and check (the search's case)",
           searchCase, "s"},
          {name + ": the same, CPU (all threads)", searchCaseCpu, "s"},
          {name + ": pre-check (reference cached)", pre, "s"},
          {name + ": trials", static_cast<double>(verdict.trials), ""},
          {name + ": error bound", verdict.errorBound, ""},
          {"threads", static_cast<double>(verifier.options().threads), ""}};
}

}  // namespace mirage::verify
