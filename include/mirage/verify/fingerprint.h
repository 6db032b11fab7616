// Fingerprint evaluation: runs an ir::Graph (kernel bodies included) on
// random field elements for one trial. Every element of a tensor carries
//   p  — its value in Z_P (Montgomery form), always;
//   q  — its value in Z_Q, when the tensor has an exact residue mod Q (it is
//        built from inputs, constants and random-function results by sums,
//        products and quotients only), so that `exp` can map it to w^q;
//   mx — for a tensor that is the result of a maximum (reduce_max or
//        accum(op=max)), the hash of the multiset of values maximized, so
//        that a maximum of maxima flattens into one maximum.
// Whether a tensor has q or mx lanes is a property of the op that produced
// it, so it is decided per tensor, not per element. See docs/verifier.md.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirage/ir/graph.h"
#include "mirage/verify/field.h"

namespace mirage::verify {

struct FTensor {
  ir::Shape shape;
  std::vector<u64> p;
  std::vector<u64> q;   // empty: no exact residue mod Q
  std::vector<u64> mx;  // empty: not the result of a maximum
  bool hasQ() const { return !q.empty(); }
  bool isMax() const { return !mx.empty(); }
  int64_t size() const { return static_cast<int64_t>(p.size()); }
  size_t bytes() const { return (p.size() + q.size() + mx.size()) * sizeof(u64); }
};
using FTensorPtr = std::shared_ptr<const FTensor>;

// What a random function (or hash) is keyed by; one key per kind and trial.
enum class KeyKind {
  InputP, InputQ,        // input elements (combined with the input's name)
  ExpNoResidue,          // exp of a value without a residue: a random function
  MaxElement,            // multiset hash of one maximized value
  MaxResult,             // the value of a maximum given its multiset hash
  // One key per operator of the table, named as the operator: the random
  // function of a VerifyEncoding::Keyed row (ir/ops.def, column keyedBy).
#define MIRAGE_KEY_ROW_(K, ...) K,
  MIRAGE_OPS(MIRAGE_KEY_ROW_)
#undef MIRAGE_KEY_ROW_
  Count
};

// The key of operator k's random function.
inline KeyKind keyOfOperator(ir::OpKind k) {
  return static_cast<KeyKind>(static_cast<int>(KeyKind::Input) + static_cast<int>(k));
}

// All randomness of one trial, derived from (seed, trial, attempt): the
// input elements, the element w of order Q that `exp` raises, and the keys
// of the random functions. Two programs checked in the same trial see the
// same Trial, so equal inputs (by name) and equal random functions.
class Trial {
 public:
  Trial(u64 seed, u64 trial, u64 attempt);
  u64 id() const { return id_; }
  // This trial's moduli: P for values, Q (= (P - 1) / 2) for exponents.
  const MontField& P() const { return p_; }
  const MontField& Q() const { return q_; }
  u64 key(KeyKind k) const { return keys_[static_cast<size_t>(k)]; }
  // The random function of kind k: the value lane (in Z_P) and the residue
  // lane (in Z_Q) of its result at argument value x (a Z_P representative).
  u64 randomP(KeyKind k, u64 x) const;
  u64 randomQ(KeyKind k, u64 x) const;
  // w^e for a plain exponent e in [0, Q), in Montgomery form.
  u64 expOmega(u64 e) const;
  u64 omega() const { return omega_; }
  // The elements of input `name`: uniform in Z_P and, independently, in Z_Q
  // (the residue lane only when `withResidue`).
  FTensor input(const std::string& name, const ir::Shape& shape, bool withResidue = true) const;
  // One element of an input (the same numbers as input()).
  struct InputKeys {
    u64 p = 0, q = 0;
  };
  InputKeys inputKeys(const std::string& name) const;
  u64 inputP(const InputKeys& k, int64_t flat) const;
  u64 inputQ(const InputKeys& k, int64_t flat) const;

 private:
  u64 id_;
  MontField p_, q_;
  std::array<u64, static_cast<size_t>(KeyKind::Count)> keys_{};
  u64 omega_;
  std::vector<u64> omegaTable_;  // 8 windows of 8 bits: w^(j * 256^i)
};

// Outcome of evaluating a program for one trial.
enum class EvalStatus {
  Ok,
  ZeroDivisor,  // some divisor was 0 in the field: the trial is resampled
  Cancelled,    // stopped by a Cancel before the end: no outputs
};

class ThreadPool;
struct Cancel;

// A value whose fingerprints a caller wants besides the outputs (the domain
// check, docs/verifier.md "Definedness"): a value of the program or of one of
// its kernel bodies.
struct WatchSite {
  const ir::Graph* graph = nullptr;  // the program, or a kernel body of it
  ir::ValueId value = ir::kNoValue;
  bool operator==(const WatchSite&) const = default;
};

// Evaluates the ops of a program for one trial. `pool` (may be null) runs
// large ops and kernel grids in parallel.
struct EvalResult {
  EvalStatus status = EvalStatus::Ok;
  std::vector<FTensorPtr> outputs;  // in the program's output order
  // For each watched site, the value lane of every element of every
  // instance: a body value once per block (and per iteration inside the
  // loop), block-major. Empty for sites not watched.
  std::vector<std::vector<u64>> watched;
};

// A store of evaluated program-level tensors, keyed by a structural hash of
// the subgraph that computes them and the trial, so that candidates sharing
// a prefix with the reference or with each other reuse its fingerprints.
class FingerprintCache {
 public:
  explicit FingerprintCache(size_t budgetBytes);
  ~FingerprintCache();
  FTensorPtr find(const std::array<u64, 2>& key);
  void insert(const std::array<u64, 2>& key, FTensorPtr t);
  size_t bytes() const;
  int64_t hits() const;
  int64_t misses() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `cancel` (may be null) is polled before each op; only ops evaluated in
// full ever reach the cache. `watch` (may be null) lists sites whose
// fingerprints go to EvalResult::watched (indexed like `watch`; null entries
// of graph are skipped); a kernel with a watched body value is evaluated even
// when its results are cached.
// `inputs` (may be null) holds the fingerprints of program inputs, keyed
// like `cache`; an input is looked up there first (and stored there when
// drawn), so that they survive whatever the main cache evicts.
// `sampledBlocks` (may be null), indexed like g.ops: a kernel op with a
// non-empty list runs those blocks only (kernel_eval.h, `onlyBlocks`), so
// its results hold just the elements they write; such a partial result is
// never cached. The pre-check uses it to compute a few output elements.
EvalResult evaluateProgram(const ir::Graph& g, const Trial& trial, ThreadPool* pool,
                           FingerprintCache* cache = nullptr, const Cancel* cancel = nullptr,
                           const std::vector<WatchSite>* watch = nullptr, FingerprintCache* inputs = nullptr,
                           const std::vector<std::vector<int64_t>>* sampledBlocks = nullptr);

// Structural hash (128 bits) of every value of a program: equal hashes mean
// the same computation on the same inputs (by name), up to the hash's
// negligible collision probability.
std::vector<std::array<u64, 2>> structuralHashes(const ir::Graph& g);

}  // namespace mirage::verify
