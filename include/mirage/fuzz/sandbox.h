// Running fuzz cases in forked child processes, so that a crash or a hang in
// any component is caught and labeled (Failure::Crash, Failure::Hang) rather
// than ending the fuzzer. The parent stays single-threaded (it only forks,
// polls and reads results), which is what makes fork safe here.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mirage/fuzz/oracle.h"

namespace mirage::fuzz {

// Up to `jobs` children at a time, each running one piece of work.
class Sandbox {
 public:
  explicit Sandbox(int jobs) : jobs_(jobs < 1 ? 1 : jobs) {}
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  bool full() const { return static_cast<int>(children_.size()) >= jobs_; }
  bool idle() const { return children_.empty(); }
  // Forks a child that runs `work` and sends back its result; `tag` comes
  // back with it. A child still running after timeoutSeconds is killed
  // (with its process group: compilers it started too). The child's
  // standard error goes to `stderrPath` (else /dev/null); the end of it is
  // added to the detail of a crash (an abort's or assertion's message).
  void start(int tag, const std::function<CaseResult()>& work, double timeoutSeconds,
             const std::string& stderrPath = "");
  // Waits until one child is done; returns its tag and result.
  std::pair<int, CaseResult> wait();

  struct Child;  // one running child (sandbox.cpp)

 private:
  int jobs_;
  std::vector<Child*> children_;
};

// One piece of work in a child, waited for.
CaseResult runIsolated(const std::function<CaseResult()>& work, double timeoutSeconds,
                       const std::string& stderrPath = "");

}  // namespace mirage::fuzz
