// The program generator of mirage-fuzz: a random, well-typed `.mg` program
// from a seed. Every operation goes through the checked builders of
// ir/check.h, so a generated program is legal by construction; the same
// seed gives the same program on every machine (the generator has its own
// random number generator rather than std:: distributions, whose output is
// implementation-defined).
#pragma once

#include <cstdint>
#include <string>

#include "mirage/ir/graph.h"

namespace mirage::fuzz {

struct GenOptions {
  int maxRandomOps = 8;          // random operations on top of the motif
  int64_t maxElements = 4096;    // per tensor: a case runs in about a second
  int64_t maxInner = 128;        // largest contraction (matmul K) and reduced extent
};

// A deterministic generator of 64-bit words (splitmix64).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next();
  int64_t below(int64_t n);  // uniform in [0, n), n >= 1
  bool chance(double p);     // true with probability p
  double uniform();          // in [0, 1)

 private:
  uint64_t state_;
};

// Mixes a run seed and a case number into the seed of that case.
uint64_t caseSeed(uint64_t runSeed, uint64_t index);

// The program of `seed`. Its name says which motif it started from
// ("fuzz_attention"); its outputs are op results, never bare inputs.
ir::Graph generateProgram(uint64_t seed, const GenOptions& options = {});

// Operations other than inputs and constants: what the shrinker minimizes
// and the tests bound.
int countStatements(const ir::Graph& g);

// The pre-defined operators the generator draws from, in OpKind order:
// every kind usable at program level (matmul, the element-wise operators,
// the reductions, transpose, and the layout operators reshape, concat and
// slice). Found by walking the OpKind range, so a new operator is fuzzed as
// soon as classifyKind knows its class.
std::vector<ir::OpKind> programOperators();

}  // namespace mirage::fuzz
