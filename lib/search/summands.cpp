#include "summands.h"

#include <algorithm>
#include <array>
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

// Wanted key w is a combination (`sign`, partner) of a key of `a` and a
// key of `x`.
bool makesKey(SumKey w, const SumKeys& a, const SumKeys& x, int sign) {
  return std::any_of(a.keys.begin(), a.keys.end(), [&](SumKey ka) { return x.has(partner(w, ka, sign)); });
}

// Bit i: makesKey(wanted[i]) (among `open`).
uint32_t maskOf(const std::vector<SumKey>& wanted, uint32_t open, const SumKeys& a, const SumKeys& x, int sign) {
  uint32_t m = 0;
  for (uint32_t r = open; r != 0; r &= r - 1) {
    const int i = std::countr_zero(r);
    if (makesKey(wanted[static_cast<size_t>(i)], a, x, sign)) m |= uint32_t{1} << i;
  }
  return m;
}

// maskOf(...) == open (`openCount` bits), stopping at the first key not made.
bool covers(const std::vector<SumKey>& wanted, uint32_t open, size_t openCount, const SumKeys& a, const SumKeys& x,
            int sign) {
  if (a.keys.size() * x.keys.size() < openCount) return false;
  for (uint32_t r = open; r != 0; r &= r - 1)
    if (!makesKey(wanted[static_cast<size_t>(std::countr_zero(r))], a, x, sign)) return false;
  return true;
}

int signIndex(int sign) { return sign > 0 ? 0 : sign < 0 ? 1 : 2; }

// For each sign (+1, -1, 0) and wanted key i (at most 31): the filter bits
// (SumKeys::filterBit) of the keys a set x must hold, one of which with
// some key of `a` makes wanted[i]. A set whose filter meets none of them
// holds none, so most "no" answers of maskOf and covers over a set `a`
// asked about many sets x are one test.
struct NeedMasks {
  std::array<std::array<uint64_t, 32>, 3> bits{};
  NeedMasks(const std::vector<SumKey>& wanted, const SumKeys& a) {
    for (int sign : {+1, -1, 0})
      for (size_t i = 0; i < wanted.size() && i < 32; ++i) {
        uint64_t m = 0;
        for (SumKey ka : a.keys) m |= SumKeys::filterBit(partner(wanted[i], ka, sign));
        bits[static_cast<size_t>(signIndex(sign))][i] = m;
      }
  }
};

// maskOf and covers with a's NeedMasks `na`: the same answers.
uint32_t maskOf(const std::vector<SumKey>& wanted, uint32_t open, const SumKeys& a, const NeedMasks& na,
                const SumKeys& x, int sign) {
  const auto& need = na.bits[static_cast<size_t>(signIndex(sign))];
  uint32_t m = 0;
  for (uint32_t r = open; r != 0; r &= r - 1) {
    const int i = std::countr_zero(r);
    if ((x.filter & need[static_cast<size_t>(i)]) && makesKey(wanted[static_cast<size_t>(i)], a, x, sign))
      m |= uint32_t{1} << i;
  }
  return m;
}
bool covers(const std::vector<SumKey>& wanted, uint32_t open, size_t openCount, const SumKeys& a, const NeedMasks& na,
            const SumKeys& x, int sign) {
  if (a.keys.size() * x.keys.size() < openCount) return false;
  const auto& need = na.bits[static_cast<size_t>(signIndex(sign))];
  for (uint32_t r = open; r != 0; r &= r - 1)
    if (!(x.filter & need[static_cast<size_t>(std::countr_zero(r))])) return false;
  return covers(wanted, open, openCount, a, x, sign);
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

std::vector<SumKeys> Summands::oneOperatorValues(const std::vector<const SumKeys*>& values) {
  std::vector<SumKeys> sets;
  for (const SumKeys* v : values) sets.push_back(*v);
  sets.push_back(zeroKeys());
  const SumKeys& zero = sets.back();
  std::vector<SumKeys> made;
  std::set<std::vector<uint64_t>> seen;
  auto consider = [&](SumKeys v) {
    std::vector<uint64_t> content;
    for (SumKey k : v.keys) content.push_back(k.bits);
    std::sort(content.begin(), content.end());
    if (seen.insert(std::move(content)).second) made.push_back(std::move(v));
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
  return made;
}

namespace {

// Masks over the wanted keys (bit i: wanted[i]), of which some one holds
// every key still open: `covers(open)`. Over at most kMostTableBits wanted
// keys a table answers it (sup[m]: some mask holds every bit of m, by the
// sum over supersets); else a scan.
class MaskCover {
 public:
  static constexpr size_t kMostTableBits = 16;
  explicit MaskCover(size_t bits) : bits_(bits) {}
  void add(uint32_t m) { masks_.push_back(m); }
  void finish() {
    std::sort(masks_.begin(), masks_.end());
    masks_.erase(std::unique(masks_.begin(), masks_.end()), masks_.end());
    if (bits_ > kMostTableBits) return;
    sup_.assign(size_t{1} << bits_, 0);
    for (uint32_t m : masks_) sup_[m] = 1;
    for (size_t b = 0; b < bits_; ++b)
      for (size_t m = 0; m < sup_.size(); ++m)
        if (!(m & (size_t{1} << b)) && sup_[m | (size_t{1} << b)]) sup_[m] = 1;
  }
  bool covers(uint32_t open) const {
    if (!sup_.empty()) return sup_[open] != 0;
    return std::any_of(masks_.begin(), masks_.end(), [&](uint32_t m) { return (m & open) == open; });
  }
  const std::vector<uint32_t>& masks() const { return masks_; }

 private:
  size_t bits_;
  std::vector<uint32_t> masks_;
  std::vector<char> sup_;
};

// twoOperatorsMake(rest, present + {v}) for every value v one operator
// makes, with rest the wanted keys v does not hold: the same tests, with
// every mask taken over all the wanted keys and only the bits of rest
// asked to be covered (`open`). What involves only the values present
// (their pairs' masks, the unions the tests take of them, each product
// of two of them and what one more operator with a value present makes
// of it) is worked out once here; make() adds what involves v.
class TwoAfterOne {
 public:
  TwoAfterOne(const std::vector<SumKey>& wanted, std::vector<SumKeys> sets)
      : wanted_(wanted), full_((uint32_t{1} << wanted.size()) - 1), sets_(std::move(sets)), n_(sets_.size()),
        singles_(wanted.size()), unions_(wanted.size()) {
    const SumKeys& zero = sets_.back();
    for (const SumKeys& a : sets_) need_.emplace_back(wanted_, a);
    neg_.resize(n_);
    sum_.resize(n_ * n_);
    diff_.resize(n_ * n_);
    for (size_t x = 0; x < n_; ++x) {
      neg_[x] = maskAt(n_ - 1, sets_[x], 0);
      for (size_t y = 0; y < n_; ++y) {
        sum_[x * n_ + y] = maskAt(y, sets_[x], +1);
        diff_[x * n_ + y] = maskAt(y, sets_[x], -1);
      }
    }
    // One product (X + Y, X - Y or -X) of values present.
    for (size_t x = 0; x < n_; ++x) {
      singles_.add(neg_[x]);
      for (size_t y = 0; y < n_; ++y) {
        singles_.add(sum_[x * n_ + y]);
        singles_.add(diff_[x * n_ + y]);
      }
    }
    singles_.finish();
    // Two products of values present.
    for (uint32_t a : singles_.masks())
      for (uint32_t b : singles_.masks()) unions_.add(a | b);
    // A sum of two values present, then an operator of it with a value Z
    // present; with itself, or a number over it.
    for (size_t z = 0; z < n_; ++z)
      for (size_t x = 0; x < n_; ++x)
        for (size_t y = x; y < n_; ++y) addSumThen(x, y, z);
    for (size_t x = 0; x < n_; ++x)
      for (size_t y = x; y < n_; ++y) addSelf(x, y);
    unions_.finish();
    // A product of values present, then an operator of it with a value
    // present or with itself.
    for (size_t x = 0; x < n_; ++x) {
      addProduct(combined(zero, sets_[x], true), neg_[x]);
      for (size_t y = 0; y < n_; ++y) {
        if (y >= x) addProduct(combined(sets_[x], sets_[y], false), sum_[x * n_ + y]);
        addProduct(combined(sets_[x], sets_[y], true), diff_[x * n_ + y]);
      }
    }
  }

  const SumKeys& zero() const { return sets_.back(); }

  // Bit i: v holds wanted[i].
  uint32_t held(const SumKeys& v) const {
    uint32_t m = 0;
    for (size_t i = 0; i < wanted_.size(); ++i)
      if (v.has(wanted_[i])) m |= uint32_t{1} << i;
    return m;
  }

  // twoOperatorsMake(wanted less v's keys, present + {v}), where `open`
  // (not 0) are the wanted keys v does not hold.
  bool make(const SumKeys& v, uint32_t open) const {
    auto done = [open](uint32_t m) { return (m & open) == open; };
    const NeedMasks nv(wanted_, v);
    // v's masks with each value present (index n_: v itself).
    std::vector<uint32_t> sumV(n_ + 1), diffVy(n_ + 1), diffYv(n_ + 1);
    for (size_t y = 0; y < n_; ++y) {
      sumV[y] = maskAt(y, v, +1);                                // v + y (= y + v)
      diffVy[y] = maskAt(y, v, -1);                              // v - y
      diffYv[y] = maskOf(wanted_, full_, v, nv, sets_[y], -1);  // y - v
    }
    sumV[n_] = maskOf(wanted_, full_, v, nv, v, +1);
    diffVy[n_] = diffYv[n_] = maskOf(wanted_, full_, v, nv, v, -1);
    const uint32_t negV = maskAt(n_ - 1, v, 0);
    // One or two products.
    if (unions_.covers(open)) return true;
    std::vector<uint32_t> own{negV};
    for (size_t y = 0; y <= n_; ++y) {
      own.push_back(sumV[y]);
      own.push_back(diffVy[y]);
      own.push_back(diffYv[y]);
    }
    for (uint32_t a : own) {
      if (singles_.covers(open & ~a)) return true;
      for (uint32_t b : own)
        if (done(a | b)) return true;
    }
    // A sum of two values (v among them, or v the third), then an operator
    // with a value; with itself, or a number over it. sum(x, z) with x or z
    // v: sumV; diff(x, z) = x - z.
    auto sumAt = [&](size_t x, size_t z) { return x == n_ ? sumV[z] : z == n_ ? sumV[x] : sum_[x * n_ + z]; };
    auto diffAt = [&](size_t x, size_t z) {
      return x == n_ ? diffVy[z] : z == n_ ? diffYv[x] : diff_[x * n_ + z];
    };
    for (size_t z = 0; z <= n_; ++z)
      for (size_t x = 0; x <= n_; ++x)
        for (size_t y = x; y <= n_; ++y) {
          if (x != n_ && y != n_ && z != n_) continue;  // in unions_
          if (done(sumAt(x, z) | sumAt(y, z)) || done(diffAt(x, z) | diffAt(y, z)) ||
              done(diffAt(z, x) | diffAt(z, y)))
            return true;
        }
    if (done(negV)) return true;
    for (size_t x = 0; x < n_; ++x)
      if (done(neg_[x] | negV) || done(sum_[x * n_ + x] | sumV[x] | sumV[n_]) ||
          done(diff_[x * n_ + x] | diffYv[x] | diffVy[x] | diffVy[n_]))
        return true;
    if (done(sumV[n_]) || done(diffVy[n_])) return true;
    // A product of values present, then an operator with v.
    for (const Product& p : products_) {
      const uint32_t left = open & ~p.own;
      if (left == 0) return true;
      if (std::any_of(p.withPresent.begin(), p.withPresent.end(), [&](uint32_t m) { return (m & left) == left; }))
        return true;
      const size_t c = static_cast<size_t>(std::popcount(left));
      for (int sign : {+1, -1, 0})
        if (covers(wanted_, left, c, v, nv, p.keys, sign)) return true;
    }
    // A product with v, then an operator with a value, v or itself.
    auto chained = [&](const SumKeys& q, uint32_t qOwn) {
      const uint32_t left = open & ~qOwn;
      if (left == 0) return true;
      const size_t c = static_cast<size_t>(std::popcount(left));
      for (size_t z = 0; z <= n_; ++z)
        for (int sign : {+1, -1, 0})
          if (z == n_ ? covers(wanted_, left, c, v, nv, q, sign) : covers(wanted_, left, c, sets_[z], need_[z], q, sign))
            return true;
      return coversLeft(left, c, q, q, +1) || coversLeft(left, c, q, q, -1);
    };
    if (chained(combined(zero(), v, true), negV)) return true;
    for (size_t y = 0; y <= n_; ++y) {
      const SumKeys& other = y == n_ ? v : sets_[y];
      if (chained(combined(v, other, false), sumV[y])) return true;
      if (chained(combined(v, other, true), diffVy[y])) return true;
      if (y < n_ && chained(combined(other, v, true), diffYv[y])) return true;
    }
    return false;
  }

 private:
  struct Product {
    SumKeys keys;
    uint32_t own = 0;
    std::vector<uint32_t> withPresent;  // with each value present and each sign; with itself (+, -)
  };

  uint32_t mask(const SumKeys& a, const SumKeys& x, int sign) const { return maskOf(wanted_, full_, a, x, sign); }
  // mask(sets_[a], x, sign), with sets_[a]'s NeedMasks.
  uint32_t maskAt(size_t a, const SumKeys& x, int sign) const {
    return maskOf(wanted_, full_, sets_[a], need_[a], x, sign);
  }
  bool coversLeft(uint32_t left, size_t count, const SumKeys& a, const SumKeys& x, int sign) const {
    return covers(wanted_, left, count, a, x, sign);
  }

  void addSumThen(size_t x, size_t y, size_t z) {
    unions_.add(sum_[x * n_ + z] | sum_[y * n_ + z]);
    unions_.add(diff_[x * n_ + z] | diff_[y * n_ + z]);
    unions_.add(diff_[z * n_ + x] | diff_[z * n_ + y]);
  }
  void addSelf(size_t x, size_t y) {
    unions_.add(neg_[x] | neg_[y]);
    unions_.add(sum_[x * n_ + x] | sum_[x * n_ + y] | sum_[y * n_ + y]);
    unions_.add(diff_[x * n_ + x] | diff_[x * n_ + y] | diff_[y * n_ + x] | diff_[y * n_ + y]);
  }
  void addProduct(SumKeys keys, uint32_t own) {
    Product p;
    p.own = own;
    for (size_t z = 0; z < n_; ++z)
      for (int sign : {+1, -1, 0}) p.withPresent.push_back(maskAt(z, keys, sign));
    p.withPresent.push_back(mask(keys, keys, +1));
    p.withPresent.push_back(mask(keys, keys, -1));
    p.keys = std::move(keys);
    products_.push_back(std::move(p));
  }

  const std::vector<SumKey>& wanted_;
  uint32_t full_;
  std::vector<SumKeys> sets_;  // the values present, then the empty key
  size_t n_;
  std::vector<NeedMasks> need_;  // per set of sets_
  std::vector<uint32_t> neg_, sum_, diff_;  // as twoOperatorsMake's, over sets_
  MaskCover singles_, unions_;
  std::vector<Product> products_;
};

}  // namespace

bool Summands::threeOperatorsMake(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values) {
  if (wanted.empty() || wanted.size() > 31 || tooLarge(values, kMostValuesForThree)) return true;
  std::vector<SumKeys> sets;
  if (!presentSets(values, sets)) return true;
  const TwoAfterOne two(wanted, std::move(sets));
  for (const SumKeys& v : oneOperatorValues(values)) {
    const uint32_t open = ((uint32_t{1} << wanted.size()) - 1) & ~two.held(v);
    if (open == 0) return true;
    // twoOperatorsMake answers "may be made" for a value with so many keys.
    if (v.keys.size() > kMostKeys) return true;
    if (two.make(v, open)) return true;
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
  // The key by contents: each value's sorted keys and wild flag, with
  // their count first, the values in the order of their contents.
  std::vector<uint64_t> shared;
  if (shared_) {
    std::vector<std::vector<uint64_t>> contents;
    for (const SumKeys* v : distinct) {
      std::vector<uint64_t> c;
      for (SumKey k : v->keys) c.push_back(k.bits);
      std::sort(c.begin(), c.end());
      c.push_back(v->wild ? 1 : 0);
      contents.push_back(std::move(c));
    }
    std::sort(contents.begin(), contents.end());
    shared.assign(key.begin(), key.begin() + static_cast<std::ptrdiff_t>(first));
    for (const std::vector<uint64_t>& c : contents) {
      shared.push_back(c.size());
      shared.insert(shared.end(), c.begin(), c.end());
    }
    if (std::optional<bool> known = shared_->find(shared)) {
      memo_.emplace(std::move(key), *known);
      return *known;
    }
  }
  const bool made = count <= 2 ? twoOperatorsMake(wanted, distinct) : threeOperatorsMake(wanted, distinct);
  if (shared_) shared_->put(std::move(shared), made);
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
