// Measurements of the verifier for mirage-bench's `verify` section: the
// field multiply-add rate of one core and the wall time of full checks.
#pragma once

#include <string>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/verify/verifier.h"

namespace mirage::verify {

struct Measurement {
  std::string name;
  double value = 0;
  std::string unit;
};

// Multiply-adds per second of the matmul inner loop on one core (CPU time of
// a [256, 64] x [64, 4096] product in Z_P, repeated for about `seconds`).
Measurement measureMulAddRate(double seconds);

// Wall time of a full check of `candidate` against `reference`:
//  - "NAME: one-shot check"  — checkEquivalent (both programs evaluated);
//  - "NAME: candidate check" — Verifier::check on a verifier whose reference
//    fingerprints are already computed (what the search pays per candidate);
//  - "NAME: pre-check (reference cached)" — Verifier::precheck likewise.
// Each is the best of `repeats` runs. Also reports the verdict's trials.
std::vector<Measurement> measureCheck(const std::string& name, const ir::Graph& reference,
                                      const ir::Graph& candidate, const Options& options,
                                      int repeats);

}  // namespace mirage::verify
