// Normal forms of abstract expressions and the subexpression test
// (docs/search.md lists the axioms this normal form decides).
#include "mirage/search/expr.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace mirage::search {
namespace {

int64_t clampToInt64(__int128 v) {
  constexpr __int128 kMax = INT64_MAX / 4;
  if (v > kMax) return static_cast<int64_t>(kMax);
  if (v < -kMax) return static_cast<int64_t>(-kMax);
  return static_cast<int64_t>(v);
}

uint64_t gcdOf(uint64_t a, uint64_t b) { return std::gcd(a, b); }
unsigned __int128 gcdOf(unsigned __int128 a, unsigned __int128 b) {
  while (b != 0) {
    unsigned __int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// n / d in lowest terms with den > 0, at the width of Int: 64 bits when both
// fit (nearly always: coefficients are small), where the gcd is a machine
// division; a 128-bit remainder is a library call (__modti3) and was 8 % of
// a search's time.
template <typename Int, typename UInt>
Rational reduce(Int n, Int d) {
  if (d < 0) n = -n, d = -d;
  const Int g = static_cast<Int>(gcdOf(static_cast<UInt>(n < 0 ? -n : n), static_cast<UInt>(d)));
  if (g > 1) n /= g, d /= g;
  // Coefficients only steer pruning, so a (never observed) overflow degrades
  // precision rather than failing.
  while (n > INT64_MAX / 4 || n < -(INT64_MAX / 4) || d > INT64_MAX / 4) n /= 2, d /= 2;
  if (d == 0) d = 1;
  Rational r;
  r.num = clampToInt64(n);
  r.den = clampToInt64(d);
  return r;
}

Rational make(__int128 n, __int128 d) {
  // Both within ±(2^63 - 1): negating either stays in range.
  constexpr __int128 kFits = INT64_MAX;
  if (n >= -kFits && n <= kFits && d >= -kFits && d <= kFits)
    return reduce<int64_t, uint64_t>(static_cast<int64_t>(n), static_cast<int64_t>(d));
  return reduce<__int128, unsigned __int128>(n, d);
}

int compareFactors(const std::vector<Factor>& a, const std::vector<Factor>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (a[i].atom != b[i].atom) return a[i].atom < b[i].atom ? -1 : 1;
    if (a[i].exponent != b[i].exponent) return a[i].exponent < b[i].exponent ? -1 : 1;
  }
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return 0;
}

bool sameShape(const Monomial& a, const Monomial& b) {
  return a.degree == b.degree && compareFactors(a.factors, b.factors) == 0;
}

bool termLess(const Monomial& a, const Monomial& b) {
  if (a.degree != b.degree) return a.degree < b.degree;
  return compareFactors(a.factors, b.factors) < 0;
}

// Sorts terms, merges like terms, drops zeros; a term without atoms is a
// plain number (sum(n, c) = n·c).
Poly normalize(std::vector<Monomial> terms) {
  for (Monomial& m : terms)
    if (m.factors.empty() && m.degree != 1) {
      m.coeff = m.coeff * Rational(m.degree);
      m.degree = 1;
    }
  std::sort(terms.begin(), terms.end(), termLess);
  Poly p;
  for (Monomial& m : terms) {
    if (!p.terms.empty() && sameShape(p.terms.back(), m))
      p.terms.back().coeff = p.terms.back().coeff + m.coeff;
    else
      p.terms.push_back(std::move(m));
  }
  std::erase_if(p.terms, [](const Monomial& m) { return m.coeff.isZero(); });
  return p;
}

Monomial multiply(const Monomial& a, const Monomial& b) {
  Monomial m;
  m.coeff = a.coeff * b.coeff;
  m.degree = static_cast<int64_t>(std::min<__int128>(static_cast<__int128>(a.degree) * b.degree,
                                                     INT64_MAX / 4));
  size_t i = 0, j = 0;
  while (i < a.factors.size() || j < b.factors.size()) {
    if (j == b.factors.size() || (i < a.factors.size() && a.factors[i].atom < b.factors[j].atom)) {
      m.factors.push_back(a.factors[i++]);
    } else if (i == a.factors.size() || b.factors[j].atom < a.factors[i].atom) {
      m.factors.push_back(b.factors[j++]);
    } else {
      Rational e = a.factors[i].exponent + b.factors[j].exponent;
      if (!e.isZero()) m.factors.push_back({a.factors[i].atom, e});
      ++i, ++j;
    }
  }
  return m;
}

// A hash of every number of the normal form, in order (interning compares
// the polynomials themselves where hashes meet). Formatting a string key
// here was a tenth of the search's time: splitConstant and the fixes
// intern a polynomial on every call.
uint64_t hashPoly(const Poly& p) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto add = [&h](int64_t x) {
    h ^= static_cast<uint64_t>(x) + 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
  };
  for (const Monomial& m : p.terms) {
    add(m.coeff.num), add(m.coeff.den), add(m.degree), add(static_cast<int64_t>(m.factors.size()));
    for (const Factor& f : m.factors) add(f.atom), add(f.exponent.num), add(f.exponent.den);
  }
  return h;
}

}  // namespace

Rational::Rational(int64_t n, int64_t d) { *this = make(n, d); }

Rational Rational::fromDouble(double v) {
  if (!std::isfinite(v)) return Rational(0);
  // Dyadic values (0.125, 4096) are exact.
  for (int shift = 0; shift <= 40; ++shift) {
    double scaled = std::ldexp(v, shift);
    if (std::fabs(scaled) < 9e15 && scaled == std::floor(scaled))
      return make(static_cast<__int128>(scaled), static_cast<__int128>(1) << shift);
  }
  // Otherwise a continued-fraction approximation (1e-6 -> 1/1000000).
  double x = std::fabs(v);
  __int128 h0 = 1, h1 = 0, k0 = 0, k1 = 1;
  for (int i = 0; i < 40; ++i) {
    double a = std::floor(x);
    __int128 ai = static_cast<__int128>(a);
    __int128 h2 = ai * h0 + h1, k2 = ai * k0 + k1;
    if (k2 > 1000000000) break;
    h1 = h0, h0 = h2, k1 = k0, k0 = k2;
    if (std::fabs(static_cast<double>(h0) / static_cast<double>(k0) - std::fabs(v)) <=
        1e-15 * std::fabs(v))
      break;
    double frac = x - a;
    if (frac < 1e-18) break;
    x = 1.0 / frac;
  }
  return make(v < 0 ? -h0 : h0, k0);
}

Rational operator+(Rational a, Rational b) {
  return make(static_cast<__int128>(a.num) * b.den + static_cast<__int128>(b.num) * a.den,
              static_cast<__int128>(a.den) * b.den);
}
Rational operator*(Rational a, Rational b) {
  return make(static_cast<__int128>(a.num) * b.num, static_cast<__int128>(a.den) * b.den);
}
Rational operator/(Rational a, Rational b) {
  return make(static_cast<__int128>(a.num) * b.den, static_cast<__int128>(a.den) * b.num);
}
Rational operator-(Rational a) { return make(-static_cast<__int128>(a.num), a.den); }
Rational abs(Rational a) { return a.num < 0 ? -a : a; }

ExprTable::ExprTable() { zero_ = intern(Poly{}); }

ExprId ExprTable::intern(Poly p) {
  const uint64_t h = hashPoly(p);
  for (auto [it, end] = polyIndex_.equal_range(h); it != end; ++it)
    if (polys_[static_cast<size_t>(it->second)] == p) return it->second;
  ExprId id = static_cast<ExprId>(polys_.size());
  polys_.push_back(std::move(p));
  polyIndex_.emplace(h, id);
  return id;
}

AtomId ExprTable::internAtom(const Atom& a) {
  auto it = atomIndex_.find(a);
  if (it != atomIndex_.end()) return it->second;
  AtomId id = static_cast<AtomId>(atoms_.size());
  atoms_.push_back(a);
  atomIndex_.emplace(a, id);
  return id;
}

ExprId ExprTable::fromMonomial(Monomial m) { return intern(normalize({std::move(m)})); }

ExprId ExprTable::input(int index) {
  Monomial m;
  m.factors.push_back({internAtom(Atom{AtomKind::Input, index, 0, -1}), Rational(1)});
  return fromMonomial(std::move(m));
}

ExprId ExprTable::constant(Rational c) {
  Monomial m;
  m.coeff = c;
  return fromMonomial(std::move(m));
}

bool ExprTable::isConstant(ExprId e) const {
  for (const Monomial& m : poly(e).terms)
    if (!m.factors.empty()) return false;
  return true;
}

ExprId ExprTable::add(ExprId a, ExprId b) {
  if (a > b) std::swap(a, b);
  return memo(1, a, b, 0, [&] {
  std::vector<Monomial> terms = poly(a).terms;
  const Poly& pb = poly(b);
  terms.insert(terms.end(), pb.terms.begin(), pb.terms.end());
  return intern(normalize(std::move(terms)));
  });
}

ExprId ExprTable::scale(ExprId a, Rational c) {
  return memo(7, a, c.num, c.den, [&] {
    std::vector<Monomial> terms = poly(a).terms;
    for (Monomial& m : terms) m.coeff = m.coeff * c;
    return intern(normalize(std::move(terms)));
  });
}

ExprId ExprTable::sub(ExprId a, ExprId b) { return add(a, scale(b, Rational(-1))); }

ExprId ExprTable::mul(ExprId a, ExprId b) {
  if (a > b) std::swap(a, b);
  return memo(2, a, b, 0, [&] {
  std::vector<Monomial> terms;
  for (const Monomial& x : poly(a).terms)
    for (const Monomial& y : poly(b).terms) terms.push_back(multiply(x, y));
  return intern(normalize(std::move(terms)));
  });
}

ExprId ExprTable::sum(ExprId a, int64_t extent) {
  return memo(3, a, 0, extent, [&] {
  std::vector<Monomial> terms = poly(a).terms;
  for (Monomial& m : terms)
    m.degree = static_cast<int64_t>(
        std::min<__int128>(static_cast<__int128>(m.degree) * extent, INT64_MAX / 4));
  return intern(normalize(std::move(terms)));
  });
}

ExprId ExprTable::inverse(ExprId a) {
  const Poly& p = poly(a);
  if (p.terms.empty()) {  // 1/0: keep it as an opaque atom
    Monomial m;
    m.factors.push_back({internAtom(Atom{AtomKind::Inv, 0, 0, a}), Rational(1)});
    return fromMonomial(std::move(m));
  }
  if (p.terms.size() == 1 && p.terms[0].degree == 1) {
    // A plain product inverts factor by factor: 1/(c·x^a·y^b) = c⁻¹·x^-a·y^-b.
    Monomial m;
    m.coeff = Rational(1) / p.terms[0].coeff;
    for (const Factor& f : p.terms[0].factors) m.factors.push_back({f.atom, -f.exponent});
    return fromMonomial(std::move(m));
  }
  // A sum stays opaque, normalized so that its first coefficient is 1:
  // 1/(c·s) = c⁻¹ · inv(s). Summed terms are never split across the
  // inverse, so that sum(n, x)/sum(n, y) does not collapse to x/y.
  Rational c = p.terms[0].coeff;
  ExprId normalized = scale(a, Rational(1) / c);
  Monomial m;
  m.coeff = Rational(1) / c;
  m.factors.push_back({internAtom(Atom{AtomKind::Inv, 0, 0, normalized}), Rational(1)});
  return fromMonomial(std::move(m));
}

ExprId ExprTable::div(ExprId a, ExprId b) {
  return memo(4, a, b, 0, [&] { return mul(a, inverse(b)); });
}

ExprId ExprTable::exp(ExprId a) {
  return memo(5, a, 0, 0, [&] {
  // exp(Σ cᵢ·mᵢ) = Π exp(mᵢ)^cᵢ. Terms that contain a maximum are dropped:
  // the shift of a numerically stable softmax (exp(x - max x)) cancels
  // between numerator and denominator (the max-shift axiom).
  Monomial result;
  for (const Monomial& m : poly(a).terms) {
    if (m.factors.empty()) continue;  // exp(c) is a constant factor
    bool hasMax = false;
    for (const Factor& f : m.factors) {
      const Atom& at = atom(f.atom);
      hasMax = hasMax || (at.kind == AtomKind::Func && at.tag == static_cast<int>(ir::OpKind::ReduceMax));
    }
    if (hasMax) continue;
    Monomial unit = m;
    unit.coeff = Rational(1);
    ExprId arg = fromMonomial(std::move(unit));
    Monomial e;
    e.factors.push_back({internAtom(Atom{AtomKind::Exp, 0, 0, arg}), m.coeff});
    result = multiply(result, e);
  }
  return fromMonomial(std::move(result));
  });
}

ExprId ExprTable::func(ir::OpKind kind, ExprId a) {
  return memo(6, a, static_cast<int64_t>(kind), 0, [&] {
  Monomial m;
  m.factors.push_back({internAtom(Atom{AtomKind::Func, static_cast<int32_t>(kind), 0, a}), Rational(1)});
  return fromMonomial(std::move(m));
  });
}

ExprId ExprTable::unary(ir::OpKind kind, ExprId a) {
  switch (kind) {
    case ir::OpKind::Exp: return exp(a);
    case ir::OpKind::Square: return mul(a, a);
    case ir::OpKind::Rsqrt: return div(constant(Rational(1)), func(ir::OpKind::Sqrt, a));
    case ir::OpKind::Sqrt:
    case ir::OpKind::Silu:
    case ir::OpKind::Gelu:
    case ir::OpKind::Tanh:
    case ir::OpKind::Sigmoid:
    case ir::OpKind::Log: return func(kind, a);
    case ir::OpKind::Neg: return scale(a, Rational(-1));
    // relu(x) = maximum(x, 0) and abs(x) = maximum(x, -x), as the verifier
    // encodes them: a program may write either form.
    case ir::OpKind::Relu: return binary(ir::OpKind::Maximum, a, constant(Rational(0)));
    case ir::OpKind::Abs: return binary(ir::OpKind::Maximum, a, scale(a, Rational(-1)));
    MIRAGE_CASES_NOT_UNARY break;
  }
  throw std::logic_error(fmt::format("ExprTable::unary: '{}' is not an element-wise unary operator", ir::opName(kind)));
}

ExprId ExprTable::binary(ir::OpKind kind, ExprId a, ExprId b) {
  switch (kind) {
    case ir::OpKind::Add: return add(a, b);
    case ir::OpKind::Sub: return sub(a, b);
    case ir::OpKind::Mul: return mul(a, b);
    case ir::OpKind::Div: return div(a, b);
    // maximum(a, b) is f(a)·f(b) for an uninterpreted f of its kind: symmetric
    // in a and b (the operator commutes), both arguments visible to the
    // subexpression test, and minimum's f differs from maximum's.
    case ir::OpKind::Maximum:
    case ir::OpKind::Minimum: return mul(func(kind, a), func(kind, b));
    MIRAGE_CASES_NOT_BINARY break;
  }
  throw std::logic_error(fmt::format("ExprTable::binary: '{}' is not an element-wise binary operator", ir::opName(kind)));
}

ExprId ExprTable::max(ExprId a, int64_t extent) {
  // Memoized like the other operations: the dead-end check asks for the
  // maximum of nearly every value it looks at (BodySearch::readableAlone).
  return memo(8, a, 0, extent, [&] {
    Monomial m;
    m.factors.push_back(
        {internAtom(Atom{AtomKind::Func, static_cast<int32_t>(ir::OpKind::ReduceMax), extent, a}), Rational(1)});
    return fromMonomial(std::move(m));
  });
}

bool ExprTable::equalUpToScale(ExprId e, ExprId t, Rational* ratio) const {
  const Poly& pe = poly(e);
  const Poly& pt = poly(t);
  if (pe.terms.size() != pt.terms.size() || pe.terms.empty()) {
    if (ratio) *ratio = Rational(1);
    return pe.terms.empty() && pt.terms.empty();
  }
  Rational r = pe.terms[0].coeff / pt.terms[0].coeff;
  for (size_t i = 0; i < pe.terms.size(); ++i) {
    if (!sameShape(pe.terms[i], pt.terms[i])) return false;
    if (pe.terms[i].coeff / pt.terms[i].coeff != r) return false;
  }
  if (ratio) *ratio = r;
  return true;
}

bool ExprTable::contains(const Monomial& big, const Monomial& small) const {
  if (small.degree <= 0 || big.degree % small.degree != 0) return false;
  size_t j = 0;
  for (const Factor& f : small.factors) {
    while (j < big.factors.size() && big.factors[j].atom < f.atom) ++j;
    if (j == big.factors.size() || big.factors[j].atom != f.atom) return false;
    // y occurs in x/y too (as the divisor), so only the magnitudes of the
    // exponents are compared.
    const Rational& have = big.factors[j].exponent;
    if (abs(f.exponent) > abs(have)) return false;
  }
  return true;
}

// e·c is a sub-sum of t for a monomial cofactor c found from e's first
// term: each term of e times c has the shape of a term of t and, with
// `sameRatios`, its coefficient too (coefficients past 64 bits are rounded
// by reduce(), so equal within a relative 1e-9).
bool ExprTable::isCofactoredSubsum(const Poly& pe, const Poly& pt, bool sameRatios) const {
  auto close = [](const Rational& x, const Rational& y) {
    const double a = x.toDouble(), b = y.toDouble();
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
  };
  const Monomial& first = pe.terms[0];
  for (const Monomial& term : pt.terms) {
    if (!contains(term, first)) continue;
    Monomial inv = first;
    for (Factor& f : inv.factors) f.exponent = -f.exponent;
    inv.degree = 1;
    inv.coeff = Rational(1) / first.coeff;
    Monomial cof = multiply(term, inv);
    cof.degree = term.degree / first.degree;
    bool all = true;
    for (const Monomial& other : pe.terms) {
      Monomial want = multiply(other, cof);
      bool found = false;
      for (const Monomial& have : pt.terms)
        if (sameShape(have, want) && (!sameRatios || close(have.coeff, want.coeff))) {
          found = true;
          break;
        }
      if (!found) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

// test(e, a) for the argument a of some atom of t.
bool ExprTable::inAtomArgument(ExprId e, ExprId t, bool (ExprTable::*test)(ExprId, ExprId)) {
  for (const Monomial& term : poly(t).terms)
    for (const Factor& f : term.factors) {
      const ExprId arg = atom(f.atom).arg;
      if (arg >= 0 && (this->*test)(e, arg)) return true;
    }
  return false;
}

bool ExprTable::isSubexpr(ExprId e, ExprId t) {
  uint64_t memoKey = (static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32) | static_cast<uint32_t>(t);
  if (const bool* known = subexprMemo_.find(memoKey)) return *known;
  bool result = false;
  const Poly& pe = poly(e);
  const Poly& pt = poly(t);
  if (e == t || isConstant(e) || equalUpToScale(e, t)) {
    result = true;
  } else if (pe.terms.size() == 1) {
    for (const Monomial& term : pt.terms)
      if (contains(term, pe.terms[0])) {
        result = true;
        break;
      }
  } else {
    result = isCofactoredSubsum(pe, pt, false);
  }
  if (!result) result = inAtomArgument(e, t, &ExprTable::isSubexpr);
  subexprMemo_.put(memoKey, result);
  return result;
}

bool ExprTable::isRatioSubsum(ExprId e, ExprId t) {
  uint64_t memoKey = (static_cast<uint64_t>(static_cast<uint32_t>(e)) << 32) | static_cast<uint32_t>(t);
  if (const bool* known = ratioMemo_.find(memoKey)) return *known;
  const Poly& pe = poly(e);
  bool result = pe.terms.size() <= 1 || e == t || equalUpToScale(e, t) ||
                isCofactoredSubsum(pe, poly(t), true) || inAtomArgument(e, t, &ExprTable::isRatioSubsum);
  ratioMemo_.put(memoKey, result);
  return result;
}

void ExprTable::collectArgs(ExprId t, std::vector<ExprId>& out, std::vector<char>& seen) const {
  for (const Monomial& term : poly(t).terms)
    for (const Factor& f : term.factors) {
      const Atom& a = atom(f.atom);
      if (a.arg < 0) continue;
      if (static_cast<size_t>(f.atom) >= seen.size()) seen.resize(atoms_.size(), 0);
      if (seen[static_cast<size_t>(f.atom)]) continue;
      seen[static_cast<size_t>(f.atom)] = 1;
      out.push_back(a.arg);
      collectArgs(a.arg, out, seen);
    }
}

std::vector<ExprId> ExprTable::atomArguments(ExprId t) const {
  std::vector<ExprId> out;
  std::vector<char> seen(atoms_.size(), 0);
  collectArgs(t, out, seen);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::pair<ExprId, Rational> ExprTable::splitConstant(ExprId e) {
  const size_t i = static_cast<size_t>(e);
  if (i < splitMemo_.size() && splitMemo_[i].first >= 0) return splitMemo_[i];
  std::vector<Monomial> rest;
  Rational c(0);
  for (const Monomial& m : poly(e).terms) {
    if (m.factors.empty())
      c = c + m.coeff;
    else
      rest.push_back(m);
  }
  const std::pair<ExprId, Rational> split{intern(normalize(std::move(rest))), c};
  if (splitMemo_.size() <= i) splitMemo_.resize(std::max(i + 1, 2 * splitMemo_.size()), {-1, Rational(0)});
  splitMemo_[i] = split;
  return split;
}

std::string ExprTable::monomialStr(const Monomial& m) const {
  std::string s;
  if (m.coeff != Rational(1) || m.factors.empty())
    s += m.coeff.den == 1 ? fmt::format("{}", m.coeff.num) : fmt::format("({}/{})", m.coeff.num, m.coeff.den);
  if (m.degree != 1) s += fmt::format("sum{}", m.degree);
  for (const Factor& f : m.factors) {
    if (!s.empty()) s += "*";
    const Atom& a = atom(f.atom);
    switch (a.kind) {
      case AtomKind::Input: s += fmt::format("in{}", a.tag); break;
      case AtomKind::Exp: s += fmt::format("exp({})", str(a.arg)); break;
      case AtomKind::Inv: s += fmt::format("inv({})", str(a.arg)); break;
      case AtomKind::Func:
        s += fmt::format("{}({})", ir::opName(static_cast<ir::OpKind>(a.tag)), str(a.arg));
        break;
    }
    if (f.exponent != Rational(1))
      s += f.exponent.den == 1 ? fmt::format("^{}", f.exponent.num)
                               : fmt::format("^({}/{})", f.exponent.num, f.exponent.den);
  }
  return s;
}

std::string ExprTable::str(ExprId e) const {
  const Poly& p = poly(e);
  if (p.terms.empty()) return "0";
  std::string s;
  for (size_t i = 0; i < p.terms.size(); ++i) {
    if (i) s += " + ";
    s += monomialStr(p.terms[i]);
  }
  return s;
}

}  // namespace mirage::search
