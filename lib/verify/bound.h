// The static quantities behind the printed error bound (docs/verifier.md,
// "The bound"): degrees of the rational expressions a program computes and
// how many times it applies a non-algebraic function or divides.
#pragma once

#include "mirage/ir/graph.h"

namespace mirage::verify {

struct BoundStats {
  double outputDegree = 0;  // max over outputs of deg(numerator) + deg(denominator)
  double maxDegree = 0;     // the same over every value
  double applications = 0;  // element applications of exp, random functions, max hashes
  double divisorElements = 0;  // elements ever used as a divisor (div, rsqrt)
  double literalBits = 0;      // largest literal: bits of its numerator plus denominator
};

BoundStats boundStats(const ir::Graph& g);

// Per-trial bound on a wrong "equivalent" for a reference and a candidate,
// and the bound after `trials` independent trials.
double trialErrorBound(const BoundStats& a, const BoundStats& b);
double errorBound(const BoundStats& a, const BoundStats& b, int trials);
// The smallest number of trials (at least 2) whose bound is below 1e-9, or
// 2 when no number of trials gets there (the bound printed says so).
int defaultTrials(const BoundStats& a, const BoundStats& b);

}  // namespace mirage::verify
