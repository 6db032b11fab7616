// The verify component decides equivalence of two programs by random testing
// over finite fields (see docs/verifier.md): every tensor is evaluated on
// uniformly random field elements, `exp` as x -> w^x with x in a second
// field, and operators outside the algebra as keyed random functions, so that
// the check is sound (it never calls different programs equivalent except
// with the printed, tiny probability) though incomplete.
//
// This header is the API the search and the tools call. Its implementation
// owner may extend it; callers rely on what is declared here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"

namespace mirage::verify {

struct Options {
  uint64_t seed = 0;
  int trials = 0;   // 0 = the default, chosen so the printed bound is below 1e-9
  int threads = 0;  // 0 = all cores
  // Memory for fingerprints kept between checks (prefixes shared by
  // candidates, keyed by a structural hash of the subgraph and the trial).
  size_t cacheBytes = size_t{1} << 30;
  // Memory for the fingerprints of the programs' inputs (per trial), kept
  // apart from cacheBytes so that no candidate's intermediates evict them:
  // every candidate, and the reference, reads the same random inputs, which
  // are drawn once per trial (docs/verifier.md, "Speed"). Also used by a
  // one-shot check, whose two programs share them.
  size_t inputBytes = size_t{512} << 20;
  // Definedness (docs/verifier.md): the candidate's domain conditions must
  // follow from the reference's or from signs. With `symmetric`, the
  // reference's must also follow from the candidate's (mirage-equiv: the two
  // programs are defined on the same inputs); the search leaves it off, since
  // a replacement may be defined on more inputs than the program it replaces.
  bool symmetric = false;
};

// Cooperative cancellation of a check: it is polled between ops, between
// trials and attempts, so a cancelled check returns within about one op's
// evaluation. Either part may be unset.
struct Cancel {
  const std::atomic<bool>* flag = nullptr;  // stop when it becomes true
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  bool requested() const {
    return (flag && flag->load(std::memory_order_relaxed)) ||
           (deadline != std::chrono::steady_clock::time_point::max() &&
            std::chrono::steady_clock::now() >= deadline);
  }
};

struct Verdict {
  bool equivalent = false;
  // The check was cancelled before it finished: inconclusive, so never
  // equivalent, but not evidence that the programs differ either.
  bool cancelled = false;
  bool signatureMismatch = false;  // inputs (names, dtypes, shapes) or output count differ
  std::string output;              // the first differing output's name (reference's)
  std::vector<int64_t> index;      // one index at which it differs
  double errorBound = 1.0;         // bound on P(equivalent is wrong)
  // The method cannot decide (never equivalent): a domain condition not
  // shown (`undefined`), a bound above 1e-9, or zero divisors on every
  // sample. `message` gives the reason ("not proven: REASON").
  bool notProven = false;
  bool undefined = false;  // the candidate may be undefined where the reference is defined
  std::string message;             // human-readable reason when not equivalent
  // For a difference at an output that depends on an exp of an exp, which the
  // fields alone cannot refute (docs/verifier.md, "Nested exps"): the real
  // inputs at which the two programs were seen to differ.
  std::string realWitness;
  int trials = 0;                  // trials run (each on every output element)
};

// Holds the reference program and its fingerprints; thread-safe to call
// precheck/check from several threads at once.
class Verifier {
 public:
  Verifier(const ir::Graph& reference, Options options = {});
  ~Verifier();
  Verifier(const Verifier&) = delete;
  Verifier& operator=(const Verifier&) = delete;

  // Cheap test that rejects most wrong candidates (one trial, a sample of
  // output elements: from the blocks that write them where the outputs'
  // kernels read only program inputs, else demand-driven). False means
  // certainly not equivalent: the candidate differs at a sampled element,
  // so check() will not prove it (mismatched signatures also give false).
  // A zero divisor makes it inconclusive: true.
  // A cancelled pre-check returns true (inconclusive); check() then reports
  // the cancellation.
  bool precheck(const ir::Graph& candidate, const Cancel& cancel = {}) const;

  // The full check on every output element and all trials.
  // Cancelled: equivalent = false, cancelled = true.
  Verdict check(const ir::Graph& candidate, const Cancel& cancel = {}) const;

  // precheck() then check(), as the search runs them for each candidate,
  // except that where the pre-check would evaluate trial 0 whole, that
  // evaluation is the full check's trial 0 instead of a second one.
  // `screenedOut` says whether the candidate failed what precheck() tests
  // (its signature, a sampled element, or trial 0 where it was whole).
  Verdict screenAndCheck(const ir::Graph& candidate, const Cancel& cancel, bool* screenedOut) const;

  // Evaluates the reference's trials ahead of any check (the part of
  // every check that does not depend on the candidate, and its larger part
  // at the shapes of real programs), so that a caller can choose what to
  // check once it is done. Checks reuse the evaluations.
  void prepare(const Cancel& cancel = {}) const;

  // The options in effect (threads resolved).
  const Options& options() const;

  // Some output of the reference depends on an exp of a value computed from
  // another exp ("nested exps", docs/verifier.md): the fields can prove a
  // candidate equal there only if it computes those exps as the reference
  // does, so a restructured candidate is at best "not proven".
  bool referenceNestsExps() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience: full check of b against a.
Verdict checkEquivalent(const ir::Graph& a, const ir::Graph& b, Options options = {});

}  // namespace mirage::verify
