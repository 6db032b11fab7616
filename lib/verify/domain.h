// Where a program is defined (mg-language.md, "Where a program is defined";
// docs/verifier.md, "Definedness"). A replacement must be defined wherever
// the program it replaces is, so every domain condition of a candidate (a
// divisor is non-zero, a sqrt argument is >= 0, an rsqrt argument is > 0)
// must be shown to hold wherever the other program is defined:
//   - statically, by a sign analysis over the reals (exp > 0, square >= 0,
//     sums and products of positives, ...), or
//   - by the other program's own conditions (its facts): where it is defined
//     its divisors are non-zero, its sqrt arguments non-negative, ...; a
//     candidate value whose fingerprint equals a fact's is that value.
// Conditions decompose syntactically where that is sound (a product is
// non-zero iff both factors are; sqrt(u) != 0 iff u != 0 given u >= 0), both
// for what must be shown and for what the other program's facts imply.
// Everything is decided per tensor ("every element of every instance"): a
// value inside a kernel body stands for all its blocks and iterations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/verify/field.h"
#include "mirage/verify/fingerprint.h"

namespace mirage::verify {

enum class Cond : uint8_t { NonZero, NonNeg, Positive };

// The condition an operator puts on one of its operands, or nullopt: the one
// table to extend for a new partial operator (log: operand 0 Positive).
struct DomainRule {
  int operand = 0;
  Cond cond = Cond::NonZero;
};
std::optional<DomainRule> domainRule(ir::OpKind kind);

// A value of a program: the program itself or one of its kernel bodies.
using Site = WatchSite;

// What one program needs and what it guarantees, built once per program.
struct DomainPlan {
  // Values whose fingerprints the check may read (every element of every
  // instance); obligation and fact nodes refer to them by index.
  std::vector<Site> sites;
  std::vector<double> siteInstances;  // elements x blocks x iterations, for the bound

  // An obligation: `cond` must hold for every element of site `site`. It
  // holds when the sign analysis shows it, or when every instance's
  // fingerprint is among the other program's facts of that kind, or when
  // all of `children` hold (a sound decomposition).
  struct Node {
    int site = -1;        // -1: not watchable (a constant): signs and children only
    Cond cond = Cond::NonZero;
    bool bySign = false;  // shown by the sign analysis
    std::vector<int> children;
  };
  std::vector<Node> nodes;
  struct Root {
    int node = 0;
    std::string what;  // "divides by `relu` (3:12)", for the reason
  };
  std::vector<Root> roots;          // every condition of the program
  std::vector<int> residualRoots;   // those the sign analysis does not show

  // Facts: where the program is defined, every element of site `site`
  // satisfies `cond` (NonZero or NonNeg; Positive is recorded as both).
  struct Fact {
    int site = 0;
    Cond cond = Cond::NonZero;
    // A positive factor the fact also holds under, for the other reduction
    // of the same sum: a mean's fact times n is the sum's, a sum's divided
    // by n the mean's (0 = none). Both conditions are invariant under it.
    int64_t meanToSum = 0;
    int64_t sumToMean = 0;
  };
  std::vector<Fact> facts;

  bool needsFacts() const { return !residualRoots.empty(); }
  // Sites to watch when checking this program's obligations / offering facts.
  std::vector<int> obligationSites() const;
  std::vector<int> factSites() const;
  // Instances compared against facts (for the bound), and instances of facts.
  double obligationInstances() const;
  double factInstances() const;
};

DomainPlan domainPlan(const ir::Graph& program);

// The facts of a program in one trial, from the fingerprints of its fact
// sites (`watched[site]`, every instance's value in Z_P); non-zero facts
// include their negations, and facts on a reduce_mean (reduce_sum) also hold
// for the reduce_sum (reduce_mean) of the same operand.
struct FactSet {
  std::vector<u64> nonZero;  // sorted
  std::vector<u64> nonNeg;   // sorted
};
FactSet collectFacts(const DomainPlan& plan, const std::vector<std::vector<u64>>& watched,
                     const MontField& P);

// "" when every residual obligation of `plan` holds against `facts` in this
// trial (`watched` are the plan's own fingerprints), else the reason naming
// the first that does not.
std::string unmetCondition(const DomainPlan& plan, const std::vector<std::vector<u64>>& watched,
                           const FactSet& facts);

}  // namespace mirage::verify
