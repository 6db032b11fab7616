#include "summands.h"

#include <algorithm>
#include <cstdlib>

namespace mirage::search {

namespace {

bool holds(const SumKeys& s, SumKey k) {
  return (s.filter & SumKeys::filterBit(k)) && std::find(s.keys.begin(), s.keys.end(), k) != s.keys.end();
}

// Lane by lane; exponents stay within 2^13 (keyOf), so differences of
// two fit 16 bits.
SumKey minus(SumKey a, SumKey b) {
  SumKey r;
  for (size_t i = 0; i < SumKey::kInputs; ++i) r.set(i, static_cast<int16_t>(a.at(i) - b.at(i)));
  return r;
}

SumKey negated(SumKey a) { return minus(SumKey{}, a); }

// Every wanted key is some key of `a` plus (or, `difference`, minus) some
// key of `b`.
bool combine(const std::vector<SumKey>& wanted, const SumKeys& a, const SumKeys& b, bool difference) {
  for (const SumKey& k : wanted) {
    bool found = false;
    for (const SumKey& ka : a.keys) {
      // k = ka + kb, or k = ka - kb.
      if (holds(b, difference ? minus(ka, k) : minus(k, ka))) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

// A number over `b` (or a value without the label over it): the negated keys.
bool inverts(const std::vector<SumKey>& wanted, const SumKeys& b) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const SumKey& k) { return holds(b, negated(k)); });
}

bool pairMakes(const std::vector<SumKey>& wanted, const SumKeys& a, const SumKeys& b) {
  return a.wild || b.wild || combine(wanted, a, b, false) || combine(wanted, a, b, true) ||
         combine(wanted, b, a, true);
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
    if (!holds(s, k)) {
      s.keys.push_back(k);
      s.filter |= SumKeys::filterBit(k);
    }
  }
  index_.put(id, static_cast<int32_t>(sets_.size()));
  sets_.push_back(std::move(s));
  return sets_.back();
}

bool Summands::oneOperatorMakes(const std::vector<SumKey>& wanted, const std::vector<const SumKeys*>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]->wild || inverts(wanted, *values[i])) return true;
    for (size_t j = i; j < values.size(); ++j)
      if (pairMakes(wanted, *values[i], *values[j])) return true;
  }
  return false;
}

bool Summands::oneOperatorWithMakes(const std::vector<SumKey>& wanted, const SumKeys& added,
                                    const std::vector<const SumKeys*>& values) {
  if (added.wild || inverts(wanted, added) || pairMakes(wanted, added, added)) return true;
  return std::any_of(values.begin(), values.end(), [&](const SumKeys* v) { return pairMakes(wanted, added, *v); });
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
