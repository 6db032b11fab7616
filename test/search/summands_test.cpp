// Summands (summands.h): the keys of degree-1 monomials, and the tests that
// prove a body must still write new values to hold the summands of a needed
// sum. A test that answers "cannot be made" where some construction makes
// them would let the bound prune a plan it must keep, so each is compared
// with a brute force over every construction of one, two and three
// operators.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "mirage/search/expr.h"
#include "summands.h"

using mirage::ir::OpKind;
using mirage::search::ExprId;
using mirage::search::ExprTable;
using mirage::search::Rational;
using mirage::search::SumKey;
using mirage::search::SumKeys;
using mirage::search::Summands;

namespace {

SumKey key(int a, int b = 0, int c = 0) {
  SumKey k;
  k.set(0, static_cast<int16_t>(a));
  k.set(1, static_cast<int16_t>(b));
  k.set(2, static_cast<int16_t>(c));
  return k;
}

SumKeys keys(std::vector<SumKey> ks) {
  SumKeys s;
  for (SumKey k : ks) s.add(k);
  return s;
}

std::vector<const SumKeys*> pointers(const std::vector<SumKeys>& v) {
  std::vector<const SumKeys*> p;
  for (const SumKeys& s : v) p.push_back(&s);
  return p;
}

// The brute force: key sets as sets, and every value one operator makes of
// two available ones (a sum: the union; a product, a quotient, a number
// over a value: sums and differences of keys), a value without the label
// (the empty key) always available.
using Set = std::set<uint64_t>;

SumKey unpack(uint64_t bits) {
  SumKey k;
  k.bits = bits;
  return k;
}

uint64_t combine(uint64_t a, uint64_t b, int sign) {
  SumKey r;
  for (size_t i = 0; i < SumKey::kInputs; ++i)
    r.set(i, static_cast<int16_t>(unpack(a).at(i) + sign * unpack(b).at(i)));
  return r.bits;
}

std::vector<Set> oneOperator(const std::vector<Set>& available) {
  std::vector<Set> all = available;
  all.push_back(Set{0});
  std::vector<Set> out;
  for (const Set& a : all)
    for (const Set& b : all) {
      Set u = a, plus, minus, neg;
      u.insert(b.begin(), b.end());
      for (uint64_t x : a) {
        neg.insert(combine(0, x, -1));
        for (uint64_t y : b) {
          plus.insert(combine(x, y, +1));
          minus.insert(combine(x, y, -1));
        }
      }
      for (Set* s : {&u, &plus, &minus, &neg}) out.push_back(*s);
    }
  return out;
}

std::vector<SumKeys> summandKeys(const std::vector<Set>& values) {
  std::vector<SumKeys> sets;
  for (const Set& v : values) {
    std::vector<SumKey> ks;
    for (uint64_t k : v) ks.push_back(unpack(k));
    sets.push_back(keys(ks));
  }
  return sets;
}

bool holdsAll(const Set& s, const std::vector<SumKey>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](SumKey k) { return s.count(k.bits) > 0; });
}

bool bruteOne(const std::vector<SumKey>& wanted, const std::vector<Set>& values) {
  for (const Set& v : oneOperator(values))
    if (holdsAll(v, wanted)) return true;
  return false;
}

bool bruteTwo(const std::vector<SumKey>& wanted, const std::vector<Set>& values) {
  for (const Set& v1 : oneOperator(values)) {
    std::vector<Set> more = values;
    more.push_back(v1);
    for (const Set& v2 : oneOperator(more)) {
      Set both = v1;
      both.insert(v2.begin(), v2.end());
      if (holdsAll(both, wanted)) return true;
    }
  }
  return false;
}

bool bruteThree(const std::vector<SumKey>& wanted, const std::vector<Set>& values) {
  for (const Set& v1 : oneOperator(values)) {
    std::vector<SumKey> rest;
    for (SumKey k : wanted)
      if (!v1.count(k.bits)) rest.push_back(k);
    std::vector<Set> more = values;
    more.push_back(v1);
    if (rest.empty() || bruteTwo(rest, more)) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("summand keys are the exponents of the inputs that carry the label", "[search][summands]") {
  ExprTable ex;
  const ExprId h = ex.input(0), x = ex.input(1), a = ex.input(2), w = ex.input(3);
  // rms_norm(H) = H / sqrt(Σ H² / n): the sum is inside an atom.
  const ExprId norm = ex.div(h, ex.func(OpKind::Sqrt, ex.scale(ex.sum(ex.mul(h, h), 4096), Rational(1, 4096))));
  // Y = X + a·(norm - X); W carries no label of the sum.
  const ExprId y = ex.mul(ex.add(x, ex.mul(a, ex.sub(norm, x))), w);
  Summands s;
  const std::vector<int> inputs{0, 1, 2};  // H, X, a carry the label; W does not
  const SumKeys& k = s.degreeOneKeys(ex, y, 0, inputs);
  CHECK_FALSE(k.wild);
  std::vector<uint64_t> got;
  for (SumKey key : k.keys) got.push_back(key.bits);
  std::sort(got.begin(), got.end());
  std::vector<uint64_t> want{key(0, 1).bits, key(0, 1, 1).bits, key(1, 0, 1).bits};
  std::sort(want.begin(), want.end());
  CHECK(got == want);
  // A sum of degree 4096 has no degree-1 key; equal contents share an id.
  CHECK(s.degreeOneKeys(ex, ex.sum(ex.mul(h, h), 4096), 0, inputs).keys.empty());
  CHECK(s.degreeOneKeys(ex, ex.scale(y, Rational(3)), 0, inputs).id == k.id);
  // More inputs than a key holds: no key.
  SumKey unused;
  CHECK_FALSE(Summands::keyOf(ex, ex.poly(x).terms[0], {0, 1, 2, 3, 4}, unused));
}

TEST_CASE("the square of Y's keys: made by one operator of Y, not of its parts", "[search][summands]") {
  // Y = X + a·H - a·X: keys X, aH, aX; Y² holds their pairwise sums.
  const SumKey kx = key(1, 0, 0), kah = key(0, 1, 1), kax = key(1, 1, 0);
  std::vector<SumKey> wanted;
  for (SumKey p : {kx, kah, kax})
    for (SumKey q : {kx, kah, kax}) {
      SumKey r;
      for (size_t i = 0; i < SumKey::kInputs; ++i) r.set(i, static_cast<int16_t>(p.at(i) + q.at(i)));
      if (std::find(wanted.begin(), wanted.end(), r) == wanted.end()) wanted.push_back(r);
    }
  REQUIRE(wanted.size() == 6);
  const std::vector<SumKeys> tiles{keys({key(1)}), keys({key(0, 1)}), keys({key(0, 0, 1)})};
  const std::vector<SumKeys> withY{keys({kx, kah, kax}), keys({key(0, 1)})};
  // Y present: its square. Only the tiles: neither one operator nor two.
  CHECK(Summands::oneOperatorMakes(wanted, pointers(withY)));
  CHECK_FALSE(Summands::oneOperatorMakes(wanted, pointers(tiles)));
  CHECK_FALSE(Summands::twoOperatorsMake(wanted, pointers(tiles)));
  // X and a·(H - X) present: their sum is Y, its square holds them all.
  const std::vector<SumKeys> parts{keys({kx}), keys({kah, kax})};
  CHECK_FALSE(Summands::oneOperatorMakes(wanted, pointers(parts)));
  CHECK(Summands::twoOperatorsMake(wanted, pointers(parts)));
  // The new value is one of the operands.
  const SumKeys y = keys({kx, kah, kax});
  CHECK(Summands::oneOperatorWithMakes(wanted, y, pointers(tiles)));
}

TEST_CASE("the three-operator test never misses a construction", "[search][summands]") {
  // As below, smaller (the brute force over three operators is slow):
  // wanted keys from a random three-operator construction, or random.
  std::mt19937 rng(11);
  auto coin = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  int no = 0, yes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Set> values(2);
    for (Set& v : values) v.insert(key(coin(5) - 2, coin(5) - 2).bits);
    Set held{0};
    for (const Set& v : values) held.insert(v.begin(), v.end());
    Set source;
    std::vector<Set> avail = values;
    for (int step = 0; step < 3; ++step) {
      std::vector<Set> next = oneOperator(avail);
      const Set& v = next[static_cast<size_t>(coin(static_cast<int>(next.size())))];
      source.insert(v.begin(), v.end());
      avail.push_back(v);
    }
    if (coin(3) == 0) source.insert(key(coin(9) - 4, coin(9) - 4).bits);
    std::vector<SumKey> wanted;
    for (uint64_t k : source)
      if (!held.count(k) && wanted.size() < 6) wanted.push_back(unpack(k));
    if (wanted.size() < 2) continue;
    const std::vector<SumKeys> sets = summandKeys(values);
    const bool three = Summands::threeOperatorsMake(wanted, pointers(sets));
    INFO("trial " << trial);
    if (bruteThree(wanted, values)) {
      CHECK(three);
      ++yes;
    }
    if (!three) ++no;
  }
  CHECK(no > 10);
  CHECK(yes > 30);
}

TEST_CASE("counting the keys new values hold", "[search][summands]") {
  // Single-key values: one product holds 1, then a square of a sum 4 more
  // (the bound: T^2), then 16.
  CHECK(Summands::valuesToWrite(1, 1, 8) == 1);
  CHECK(Summands::valuesToWrite(5, 1, 8) == 2);
  CHECK(Summands::valuesToWrite(6, 1, 8) == 3);
  CHECK(Summands::valuesToWrite(6, 2, 8) == 2);
  CHECK(Summands::valuesToWrite(9, 3, 8) == 1);
  CHECK(Summands::valuesToWrite(1000000, 1, 3) == 3);
}

TEST_CASE("the one- and two-operator tests never miss a construction", "[search][summands]") {
  // Random key sets over two inputs; wanted keys drawn from what a random
  // construction makes (so that many instances can be made), held by no
  // value and not empty. Where the brute force makes them, the tests must
  // say so; each must also say "cannot" somewhere, or it proves nothing.
  std::mt19937 rng(7);
  auto coin = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  int oneNo = 0, twoNo = 0, twoYes = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<Set> values(static_cast<size_t>(2 + coin(3)));
    for (Set& v : values)
      for (int i = 0, n = 1 + coin(2); i < n; ++i) v.insert(key(coin(5) - 2, coin(5) - 2).bits);
    Set held{0};
    for (const Set& v : values) held.insert(v.begin(), v.end());
    // Keys of a random two-operator construction, or random keys.
    std::vector<Set> first = oneOperator(values);
    Set source = first[static_cast<size_t>(coin(static_cast<int>(first.size())))];
    if (coin(2)) {
      std::vector<Set> more = values;
      more.push_back(source);
      std::vector<Set> second = oneOperator(more);
      const Set& s2 = second[static_cast<size_t>(coin(static_cast<int>(second.size())))];
      source.insert(s2.begin(), s2.end());
    }
    if (coin(3) == 0)
      for (int i = 0; i < 3; ++i) source.insert(key(coin(7) - 3, coin(7) - 3).bits);
    std::vector<SumKey> wanted;
    for (uint64_t k : source)
      if (!held.count(k) && wanted.size() < 6 && coin(3) != 0) wanted.push_back(unpack(k));
    if (wanted.empty()) continue;
    const std::vector<SumKeys> sets = summandKeys(values);
    const bool one = Summands::oneOperatorMakes(wanted, pointers(sets));
    const bool two = Summands::twoOperatorsMake(wanted, pointers(sets));
    INFO("trial " << trial);
    if (bruteOne(wanted, values)) CHECK(one);
    if (bruteTwo(wanted, values)) {
      CHECK(two);
      ++twoYes;
    }
    if (!one) ++oneNo;
    if (!two) ++twoNo;
  }
  CHECK(oneNo > 20);
  CHECK(twoNo > 20);
  CHECK(twoYes > 20);
}

TEST_CASE("the three-operator test answers as two operators after each first value", "[search][summands]") {
  // threeOperatorsMake works out once what does not involve the first new
  // value; its answer must be that of the definition: some value one
  // operator makes (oneOperatorValues) holds every wanted key, or two more
  // operators make the rest with it present (twoOperatorsMake). Random
  // instances of the sizes the search asks (up to 12 values, 3 inputs),
  // with wanted keys beyond the table's 16 bits too.
  std::mt19937 rng(23);
  auto coin = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  int yes = 0, no = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<SumKeys> sets(static_cast<size_t>(1 + coin(trial % 3 == 0 ? 12 : 6)));
    for (SumKeys& v : sets)
      for (int i = 0, n = 1 + coin(3); i < n; ++i) v.add(key(coin(5) - 2, coin(5) - 2, coin(3) - 1));
    std::vector<SumKey> wanted;
    const size_t most = trial % 10 == 0 ? 20 : 1 + static_cast<size_t>(coin(8));
    for (int tries = 0; wanted.size() < most && tries < 200; ++tries) {
      const SumKey k = key(coin(9) - 4, coin(9) - 4, coin(5) - 2);
      if (k.empty() || std::find(wanted.begin(), wanted.end(), k) != wanted.end()) continue;
      if (std::any_of(sets.begin(), sets.end(), [&](const SumKeys& v) { return v.has(k); })) continue;
      wanted.push_back(k);
    }
    if (wanted.empty()) continue;
    const std::vector<const SumKeys*> values = pointers(sets);
    bool reference = false;
    for (const SumKeys& v : Summands::oneOperatorValues(values)) {
      std::vector<SumKey> rest;
      for (SumKey k : wanted)
        if (!v.has(k)) rest.push_back(k);
      std::vector<const SumKeys*> more = values;
      more.push_back(&v);
      if (rest.empty() || Summands::twoOperatorsMake(rest, more)) {
        reference = true;
        break;
      }
    }
    INFO("trial " << trial << ", " << sets.size() << " values, " << wanted.size() << " wanted");
    CHECK(Summands::threeOperatorsMake(wanted, values) == reference);
    (reference ? yes : no)++;
  }
  CHECK(yes > 30);
  CHECK(no > 30);
}

TEST_CASE("threads share the operator tests' answers by the values' contents, not their ids", "[search][summands]") {
  // Two Summands (two threads) intern the same key sets in different
  // orders, so their ids differ; one answers from what the other worked
  // out, and every answer is the one a Summands of its own gives.
  ExprTable ex;
  const ExprId h = ex.input(0), x = ex.input(1), a = ex.input(2);
  const std::vector<int> inputs{0, 1, 2};
  const std::vector<ExprId> exprs{h, x, a, ex.mul(a, h), ex.add(x, ex.mul(a, h)), ex.mul(x, x)};
  auto shared = std::make_shared<Summands::SharedAnswers>();
  Summands first, second, alone;
  first.shareAnswers(shared);
  second.shareAnswers(shared);
  std::vector<const SumKeys*> inFirst, inSecond, inAlone;
  for (ExprId e : exprs) inFirst.push_back(&first.degreeOneKeys(ex, e, 0, inputs));
  for (auto e = exprs.rbegin(); e != exprs.rend(); ++e) inSecond.insert(inSecond.begin(), &second.degreeOneKeys(ex, *e, 0, inputs));
  for (ExprId e : exprs) inAlone.push_back(&alone.degreeOneKeys(ex, e, 0, inputs));
  CHECK(inFirst[0]->id != inSecond[0]->id);
  const std::vector<std::vector<SumKey>> asks{{key(2, 0, 0)}, {key(1, 1, 0), key(0, 2, 1)}, {key(0, 0, 3), key(3, 0, 0)}};
  for (int count : {2, 3})
    for (const std::vector<SumKey>& wanted : asks)
      for (size_t n = 1; n <= exprs.size(); ++n) {
        auto prefix = [&](const std::vector<const SumKeys*>& v) {
          return std::vector<const SumKeys*>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
        };
        const bool own = alone.operatorsMakeMemo(count, wanted, prefix(inAlone));
        CHECK(first.operatorsMakeMemo(count, wanted, prefix(inFirst)) == own);
        CHECK(second.operatorsMakeMemo(count, wanted, prefix(inSecond)) == own);
      }
}
