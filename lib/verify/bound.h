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

// "equivalent" is only ever printed with a bound at most this (cli.md).
constexpr double kMaxErrorBound = 1e-9;
// The most trials a default check runs.
constexpr int kMaxTrials = 64;

// Per-trial bound on a wrong "equivalent" for a reference and a candidate,
// and the bound after `trials` independent trials. `matchPairs` counts the
// comparisons of a domain condition's fingerprint against the other
// program's facts (domain.h): each false match is a Schwartz-Zippel event.
double trialErrorBound(const BoundStats& a, const BoundStats& b, double matchPairs = 0);
double errorBound(const BoundStats& a, const BoundStats& b, int trials, double matchPairs = 0);
// The smallest number of trials (at least 2) whose bound is at most
// kMaxErrorBound, or 0 when more than kMaxTrials would be needed.
int trialsNeeded(const BoundStats& a, const BoundStats& b, double matchPairs = 0);
// trialsNeeded, or 2 when no number of trials up to kMaxTrials gets there
// (the check then answers "not proven").
int defaultTrials(const BoundStats& a, const BoundStats& b, double matchPairs = 0);

}  // namespace mirage::verify
