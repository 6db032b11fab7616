// Summands: which monomials a body can still make by one operator, for the
// bound's "sums still to make" (docs/search.md, "Bounds").
//
// A sum over a label l turns each degree-1 monomial of the value it reads
// into a monomial of degree extent(l) with the same factors. What decides
// whether a body has the summand of a needed sum is the monomial's *key*:
// the exponents of the program inputs that carry l, outside every atom
// (atoms and inputs without l are what a product with a value without l
// may still change). A key is a vector of at most four exponents, one per
// input carrying the label.
//
// An element-wise operator's result has degree-1 keys drawn from its
// operands': a sum's are the union, a product's the pairwise sums, a
// quotient's the pairwise differences (where the divisor is one monomial;
// else the divisor is an atom and the keys are the dividend's), a function
// has only the empty key. oneOperatorMakes asks whether one operator of
// some values can make a value holding every key of a set none of them
// holds, which only a product or a quotient can.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "mirage/search/expr.h"
#include "mirage/search/flat_memo.h"
#include "mirage/search/mix.h"

namespace mirage::search {

// Four signed 16-bit exponents in one word, so that keys compare as
// integers (the search compares them in nearly every state).
struct SumKey {
  uint64_t bits = 0;
  static constexpr size_t kInputs = 4;
  int16_t at(size_t i) const { return static_cast<int16_t>(static_cast<uint16_t>(bits >> (16 * i))); }
  void set(size_t i, int16_t v) {
    bits = (bits & ~(uint64_t{0xffff} << (16 * i))) | (uint64_t{static_cast<uint16_t>(v)} << (16 * i));
  }
  bool empty() const { return bits == 0; }
  friend bool operator==(SumKey a, SumKey b) { return a.bits == b.bits; }
};

// The degree-1 keys of an expression over some inputs. `wild`: one of its
// monomials has an exponent of those inputs that is no integer, or too
// large; every question about it is answered "may be made".
struct SumKeys {
  int32_t id = -1;  // equal for equal contents (wild, keys): Summands interns them
  bool wild = false;
  std::vector<SumKey> keys;
  uint64_t filter = 0;  // bit filterBit(k) of every key: most "holds k?" answers are one test
  static uint64_t filterBit(SumKey k) { return uint64_t{1} << ((k.bits * 0x9e3779b97f4a7c15ull) >> 58); }
  bool has(SumKey k) const {
    return (filter & filterBit(k)) && std::find(keys.begin(), keys.end(), k) != keys.end();
  }
  void add(SumKey k) {
    if (has(k)) return;
    keys.push_back(k);
    filter |= filterBit(k);
  }
};

struct ContentHash {
  size_t operator()(const std::vector<uint64_t>& v) const {
    uint64_t h = v.size();
    for (uint64_t x : v) h = mix(h ^ x);
    return static_cast<size_t>(h);
  }
};

class Summands {
 public:
  // `inputs`: the input indices (Atom::tag) that carry the label, at most
  // SumKey::kInputs. False where there are more, or an exponent of one is
  // no integer or beyond 2^13.
  static bool keyOf(const ExprTable& exprs, const Monomial& m, const std::vector<int>& inputs, SumKey& key);

  // The degree-1 keys of e over `inputs` (memoized per expression and
  // `slot`, one slot per set of inputs, below 64).
  const SumKeys& degreeOneKeys(const ExprTable& exprs, ExprId e, int slot, const std::vector<int>& inputs);

  // Some operator (a product, a square, a quotient, a number over a value)
  // of values whose keys are `values` makes a value whose degree-1 keys
  // include every key of `wanted` (none of which is empty or held by one of
  // `values`: a sum of two values, or a value with a number, has no key
  // that neither holds).
  static bool oneOperatorMakes(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values);
  // The same, where at least one operand is `added` (the others from
  // `values`, which need not include it).
  static bool oneOperatorWithMakes(const std::vector<SumKey>& wanted, const SumKeys& added,
                                   const std::vector<const SumKeys*>& values);

  // Two new values can hold `wanted` between them (each key in one),
  // the second one made of the first, the values present, or neither:
  // every way of making two values with one operator each (sums of two
  // values, which hold no key neither holds, then any operator of that;
  // two products of values present; a product of a product). False
  // proves that a third new value is needed.
  static bool twoOperatorsMake(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values);
  // Three new values can hold `wanted` between them: some value one
  // operator makes of the values present, then two more
  // (twoOperatorsMake with it present, for the keys it does not hold).
  // The same answer as that loop over oneOperatorValues, with what does not
  // involve the first value worked out once (summands.cpp).
  static bool threeOperatorsMake(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values);
  // Every value one operator makes of two of `values` (none wild), or of
  // one and a value without the label: sums, products, quotients and a
  // number over a value, each content once.
  static std::vector<SumKeys> oneOperatorValues(const std::vector<const SumKeys*>& values);
  // Either, by the number of new values (2 or 3), memoized by `wanted` and
  // the contents of `values` (SumKeys::id): states share them far more
  // often than they share values.
  bool operatorsMakeMemo(int count, const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values);

  // The answers of operatorsMakeMemo's tests, shared by the threads of one
  // search and keyed by the values' contents (a Summands' ids are its
  // own): a test one thread worked out, about a millisecond at NTrans's
  // sizes, the others take from here. The answers are functions of the
  // key, so which thread asks first changes nothing.
  class SharedAnswers {
   public:
    std::optional<bool> find(const std::vector<uint64_t>& key) const {
      std::lock_guard lock(mu_);
      auto it = answers_.find(key);
      if (it == answers_.end()) return std::nullopt;
      return it->second;
    }
    void put(std::vector<uint64_t> key, bool made) {
      std::lock_guard lock(mu_);
      answers_.emplace(std::move(key), made);
    }

   private:
    mutable std::mutex mu_;
    std::unordered_map<std::vector<uint64_t>, bool, ContentHash> answers_;
  };
  void shareAnswers(std::shared_ptr<SharedAnswers> shared) { shared_ = std::move(shared); }

  // The fewest new values that can hold `wanted` keys none of the present
  // values holds, where a present value has at most `mostKeys` keys, by
  // counting: a sum holds at most the keys of its operands (and no key
  // neither holds), a product at most the product of their numbers, a
  // quotient or a number over a value at most its operand's number, a
  // function one (the empty key). So the i-th new value holds at most
  // T_i = max(2 T, T^2, T + 1) keys and at most N_i = max(2 N, T^2) keys
  // that no present value holds (T, N: the most of the values before it;
  // T_0 = mostKeys, N_0 = 0), and `wanted` keys need the least n with
  // N_1 + ... + N_n >= wanted. At most `cap`.
  static int valuesToWrite(size_t wanted, size_t mostKeys, int cap);

 private:
  std::deque<SumKeys> sets_;  // a deque: the references handed out stay valid as it grows
  FlatMemo<int32_t> index_;
  std::map<std::vector<uint64_t>, int32_t> ids_;  // contents (keys sorted, then wild) to SumKeys::id
  std::unordered_map<std::vector<uint64_t>, bool, ContentHash> memo_;  // count, wanted, 0, the sorted ids of values
  std::shared_ptr<SharedAnswers> shared_;
};

}  // namespace mirage::search
