#include "summands.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace mirage::search {

namespace {

// Lane by lane; exponents stay within 2^13 (keyOf), so sums and
// differences of two fit 16 bits.
SumKey minus(SumKey a, SumKey b) {
  SumKey r;
  for (size_t i = 0; i < SumKey::kInputs; ++i) r.set(i, static_cast<int16_t>(a.at(i) - b.at(i)));
  return r;
}

SumKey negated(SumKey a) { return minus(SumKey{}, a); }

SumKey plus(SumKey a, SumKey b) { return minus(a, negated(b)); }

// The key k that x must hold for wanted key w: w = a + x (`sign` +1),
// w = x - a (sign -1) or w = a - x (sign 0), a a key of the other operand.
SumKey partner(SumKey w, SumKey a, int sign) { return sign > 0 ? minus(w, a) : sign < 0 ? plus(w, a) : minus(a, w); }

// Bit i: wanted[i] (among `open`) is a combination (`sign`, partner) of a
// key of `a` and a key of `x`.
uint32_t maskOf(const std::vector<SumKey>& wanted, uint32_t open, const SumKeys& a, const SumKeys& x, int sign) {
  uint32_t m = 0;
  for (uint32_t r = open; r != 0; r &= r - 1) {
    const int i = std::countr_zero(r);
    for (SumKey ka : a.keys)
      if (x.has(partner(wanted[static_cast<size_t>(i)], ka, sign))) {
        m |= uint32_t{1} << i;
        break;
      }
  }
  return m;
}

// maskOf(...) == open (`openCount` bits), stopping at the first key not made.
bool covers(const std::vector<SumKey>& wanted, uint32_t open, size_t openCount, const SumKeys& a, const SumKeys& x,
            int sign) {
  if (a.keys.size() * x.keys.size() < openCount) return false;
  for (uint32_t r = open; r != 0; r &= r - 1) {
    const SumKey w = wanted[static_cast<size_t>(std::countr_zero(r))];
    if (std::none_of(a.keys.begin(), a.keys.end(), [&](SumKey ka) { return x.has(partner(w, ka, sign)); }))
      return false;
  }
  return true;
}

// The value without the label: the empty key alone.
const SumKeys& zeroKeys() {
  static const SumKeys zero = [] {
    SumKeys z;
    z.add(SumKey{});
    return z;
  }();
  return zero;
}

// One operator of `a` and `b` (a product, either quotient, or, with b the
// empty key, a number over a) holds every wanted key (at most 31).
bool pairMakes(const std::vector<SumKey>& wanted, const SumKeys& a, const SumKeys& b) {
  if (a.wild || b.wild || wanted.size() > 31) return true;
  const uint32_t all = (uint32_t{1} << wanted.size()) - 1;
  return covers(wanted, all, wanted.size(), a, b, +1) || covers(wanted, all, wanted.size(), a, b, 0) ||
         covers(wanted, all, wanted.size(), b, a, 0);
}

}  // namespace

bool Summands::keyOf(const ExprTable& exprs, const Monomial& m, const std::vector<int>& inputs, SumKey& key) {
  key = SumKey{};
  if (inputs.size() > SumKey::kInputs) return false;
  for (const Factor& f : m.factors) {
    const Atom& a = exprs.atom(f.atom);
    if (a.kind != AtomKind::Input) continue;
    auto it = std::find(inputs.begin(), inputs.end(), a.tag);
    if (it == inputs.end()) continue;
    if (!f.exponent.isInteger() || std::llabs(f.exponent.num) > (1 << 13)) return false;
    key.set(static_cast<size_t>(it - inputs.begin()), static_cast<int16_t>(f.exponent.num));
  }
  return true;
}

const SumKeys& Summands::degreeOneKeys(const ExprTable& exprs, ExprId e, int slot, const std::vector<int>& inputs) {
  const uint64_t id = static_cast<uint64_t>(e) * 64 + static_cast<uint64_t>(slot);
  if (const int32_t* known = index_.find(id)) return sets_[static_cast<size_t>(*known)];
  SumKeys s;
  for (const Monomial& m : exprs.poly(e).terms) {
    if (m.degree != 1) continue;
    SumKey k;
    if (!keyOf(exprs, m, inputs, k)) {
      s.wild = true;
      continue;
    }
    s.add(k);
  }
  std::vector<uint64_t> content;
  for (SumKey k : s.keys) content.push_back(k.bits);
  std::sort(content.begin(), content.end());
  content.push_back(s.wild ? 1 : 0);
  s.id = ids_.emplace(std::move(content), static_cast<int32_t>(ids_.size())).first->second;
  index_.put(id, static_cast<int32_t>(sets_.size()));
  sets_.push_back(std::move(s));
  return sets_.back();
}

bool Summands::oneOperatorMakes(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (pairMakes(wanted, zeroKeys(), *values[i])) return true;
    for (size_t j = i; j < values.size(); ++j)
      if (pairMakes(wanted, *values[i], *values[j])) return true;
  }
  return false;
}

bool Summands::oneOperatorWithMakes(const std::vector<SumKey>& wanted, const SumKeys& added,
                                    const std::vector<const SumKeys*>& values) {
  if (pairMakes(wanted, zeroKeys(), added) || pairMakes(wanted, added, added)) return true;
  return std::any_of(values.begin(), values.end(), [&](const SumKeys* v) { return pairMakes(wanted, added, *v); });
}

namespace {

// The keys of a product (or, `difference`, a quotient) of a and b.
SumKeys combined(const SumKeys& a, const SumKeys& b, bool difference) {
  SumKeys r;
  for (SumKey x : a.keys)
    for (SumKey y : b.keys) r.add(difference ? minus(x, y) : plus(x, y));
  return r;
}

// Beyond these the tests answer "may be made" without looking (which only
// proves less): their work grows as the cube of the values present, times
// the values one operator makes for the three-operator test, and each key
// set's size.
constexpr size_t kMostValuesForTwo = 24, kMostValuesForThree = 12, kMostKeys = 16;

bool tooLarge(const std::vector<const SumKeys*>& values, size_t most) {
  return values.size() > most ||
         std::any_of(values.begin(), values.end(), [](const SumKeys* v) { return v->keys.size() > kMostKeys; });
}

// The key sets of the values present, then that of a value without the
// label (the empty key); false where one is wild.
bool presentSets(const std::vector<const SumKeys*>& values, std::vector<SumKeys>& sets) {
  for (const SumKeys* v : values) {
    if (v->wild) return false;
    sets.push_back(*v);
  }
  sets.push_back(zeroKeys());
  return true;
}

}  // namespace

bool Summands::twoOperatorsMake(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values) {
  if (wanted.empty() || wanted.size() > 31 || tooLarge(values, kMostValuesForTwo)) return true;
  const uint32_t full = (uint32_t{1} << wanted.size()) - 1;
  std::vector<SumKeys> sets;
  if (!presentSets(values, sets)) return true;
  const SumKeys& zero = sets.back();
  const size_t n = sets.size();
  // One operator of two values present: X + Y, X - Y, -X (a number over X).
  std::vector<uint32_t> sum(n * n), diff(n * n), neg(n);
  std::vector<uint32_t> products;
  for (size_t x = 0; x < n; ++x) {
    neg[x] = maskOf(wanted, full, zero, sets[x], 0);
    products.push_back(neg[x]);
    for (size_t y = 0; y < n; ++y) {
      sum[x * n + y] = maskOf(wanted, full, sets[y], sets[x], +1);
      diff[x * n + y] = maskOf(wanted, full, sets[y], sets[x], -1);
      products.push_back(sum[x * n + y]);
      products.push_back(diff[x * n + y]);
    }
  }
  std::sort(products.begin(), products.end());
  products.erase(std::unique(products.begin(), products.end()), products.end());
  // One product holds them all, or two products of values present do.
  for (uint32_t a : products)
    for (uint32_t b : products)
      if ((a | b) == full) return true;
  // A sum of X and Y (no wanted key), then an operator of it: with a value
  // Z present (times, over, or under it), with itself, or a number over it.
  std::vector<uint32_t> p(n), d1(n), d2(n);
  for (size_t z = 0; z < n; ++z) {
    for (size_t x = 0; x < n; ++x) {
      p[x] = sum[x * n + z];
      d1[x] = diff[x * n + z];
      d2[x] = diff[z * n + x];
    }
    for (size_t x = 0; x < n; ++x)
      for (size_t y = x; y < n; ++y)
        if ((p[x] | p[y]) == full || (d1[x] | d1[y]) == full || (d2[x] | d2[y]) == full) return true;
  }
  for (size_t x = 0; x < n; ++x)
    for (size_t y = x; y < n; ++y) {
      if ((neg[x] | neg[y]) == full) return true;
      if ((sum[x * n + x] | sum[x * n + y] | sum[y * n + y]) == full) return true;
      if ((diff[x * n + x] | diff[x * n + y] | diff[y * n + x] | diff[y * n + y]) == full) return true;
    }
  // A product V of values present (X + Y, X - Y or -X), then an operator of
  // V with a value Z present, with itself, or a number over it; the keys V
  // holds count too.
  auto chained = [&](const SumKeys& v, uint32_t own) {
    const uint32_t open = full & ~own;
    if (open == 0) return true;
    const size_t count = static_cast<size_t>(std::popcount(open));
    for (size_t z = 0; z < n; ++z)
      for (int sign : {+1, -1, 0})
        if (covers(wanted, open, count, sets[z], v, sign)) return true;
    return covers(wanted, open, count, v, v, +1) || covers(wanted, open, count, v, v, -1);
  };
  for (size_t x = 0; x < n; ++x) {
    if (chained(combined(zero, sets[x], true), neg[x])) return true;
    for (size_t y = 0; y < n; ++y) {
      if (y >= x && chained(combined(sets[x], sets[y], false), sum[x * n + y])) return true;
      if (chained(combined(sets[x], sets[y], true), diff[x * n + y])) return true;
    }
  }
  return false;
}

bool Summands::threeOperatorsMake(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values) {
  if (wanted.empty() || wanted.size() > 31 || tooLarge(values, kMostValuesForThree)) return true;
  std::vector<SumKeys> sets;
  if (!presentSets(values, sets)) return true;
  const SumKeys zero = sets.back();
  // Every value one operator makes of two present (or of one and a value
  // without the label), each content once.
  std::vector<SumKeys> first;
  std::set<std::vector<uint64_t>> seen;
  auto consider = [&](SumKeys v) {
    std::vector<uint64_t> content;
    for (SumKey k : v.keys) content.push_back(k.bits);
    std::sort(content.begin(), content.end());
    if (seen.insert(std::move(content)).second) first.push_back(std::move(v));
  };
  for (size_t x = 0; x < sets.size(); ++x) {
    consider(combined(zero, sets[x], true));
    for (size_t y = 0; y < sets.size(); ++y) {
      if (y >= x) {
        SumKeys u = sets[x];
        for (SumKey k : sets[y].keys) u.add(k);
        consider(std::move(u));
        consider(combined(sets[x], sets[y], false));
      }
      consider(combined(sets[x], sets[y], true));
    }
  }
  std::vector<const SumKeys*> more = values;
  more.push_back(nullptr);
  std::vector<SumKey> rest;
  for (const SumKeys& v : first) {
    rest.clear();
    for (SumKey k : wanted)
      if (!v.has(k)) rest.push_back(k);
    if (rest.empty()) return true;
    more.back() = &v;
    if (twoOperatorsMake(rest, more)) return true;
  }
  return false;
}

bool Summands::operatorsMakeMemo(int count, const std::vector<SumKey>& wanted,
                                 const std::vector<const SumKeys*>& values) {
  std::vector<uint64_t> key{static_cast<uint64_t>(count)};
  for (SumKey k : wanted) key.push_back(k.bits);
  key.push_back(0);
  const size_t first = key.size();
  for (const SumKeys* v : values) key.push_back(static_cast<uint64_t>(v->id));
  std::sort(key.begin() + static_cast<std::ptrdiff_t>(first), key.end());
  key.erase(std::unique(key.begin() + static_cast<std::ptrdiff_t>(first), key.end()), key.end());
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  std::vector<const SumKeys*> distinct;
  for (const SumKeys* v : values)
    if (std::none_of(distinct.begin(), distinct.end(), [&](const SumKeys* d) { return d->id == v->id; }))
      distinct.push_back(v);
  const bool made = count <= 2 ? twoOperatorsMake(wanted, distinct) : threeOperatorsMake(wanted, distinct);
  memo_.emplace(std::move(key), made);
  return made;
}

int Summands::valuesToWrite(size_t wanted, size_t mostKeys, int cap) {
  double most = static_cast<double>(std::max<size_t>(mostKeys, 1)), fresh = 0, held = 0;
  for (int n = 1; n <= cap; ++n) {
    fresh = std::max(2 * fresh, most * most);
    most = std::max({2 * most, most * most, most + 1});
    held += fresh;
    if (held >= static_cast<double>(wanted)) return n;
  }
  return cap;
}

}  // namespace mirage::search
