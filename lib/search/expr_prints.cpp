// Fingerprints of abstract expressions (expr_prints.h).

#include "expr_prints.h"

#include "mirage/search/mix.h"

namespace mirage::search {
namespace {

constexpr uint64_t kP = (uint64_t{1} << 61) - 1;  // a Mersenne prime
// lcm(1..16): every exponent whose denominator divides it maps to an
// integer power of the atom's unit.
constexpr int64_t kL = 720720;
// Coefficients and degrees below this stay exact through one product or
// sum in expr.cpp (which clamps only beyond 2^61).
constexpr int64_t kExact = int64_t{1} << 30;
constexpr uint64_t kSeed[2] = {0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull};

uint64_t mulMod(uint64_t a, uint64_t b) {
  const unsigned __int128 x = static_cast<unsigned __int128>(a) * b;
  uint64_t r = (static_cast<uint64_t>(x) & kP) + static_cast<uint64_t>(x >> 61);
  return r >= kP ? r - kP : r;
}
uint64_t addMod(uint64_t a, uint64_t b) {
  const uint64_t r = a + b;
  return r >= kP ? r - kP : r;
}
uint64_t subMod(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kP - b; }
uint64_t powMod(uint64_t a, uint64_t k) {
  uint64_t r = 1;
  for (; k; k >>= 1, a = mulMod(a, a))
    if (k & 1) r = mulMod(r, a);
  return r;
}
uint64_t invMod(uint64_t a) { return powMod(a, kP - 2); }  // a != 0
// A signed integer's residue.
uint64_t residue(int64_t n) {
  const uint64_t m = static_cast<uint64_t>(n < 0 ? -n : n) % kP;
  return n < 0 && m ? kP - m : m;
}
// A unit drawn from a 64-bit key.
uint64_t unitOf(uint64_t key) {
  uint64_t x = mix(key) % kP;
  return x == 0 ? 1 : x;
}

}  // namespace

uint64_t ExprPrints::atomPower(const ExprTable& exprs, AtomId atom, int point, Rational exponent, bool* known) {
  if (exponent.den <= 0 || kL % exponent.den != 0 || exponent.num >= kExact || exponent.num <= -kExact) {
    *known = false;
    return 1;
  }
  const size_t slot = static_cast<size_t>(atom) * 2 + static_cast<size_t>(point);
  if (slot >= atomUnits_.size()) atomUnits_.resize(slot + 64);
  AtomUnit& u = atomUnits_[slot];
  if (u.unit == 0) {
    // From the atom's content (interned atoms are equal exactly when their
    // contents are): the same unit on every thread and in every run.
    const Atom& a = exprs.atom(atom);
    uint64_t h = mix(kSeed[point] ^ static_cast<uint64_t>(a.kind));
    h = mix(h ^ static_cast<uint64_t>(static_cast<int64_t>(a.tag)));
    h = mix(h ^ static_cast<uint64_t>(a.extent));
    h = mix(h ^ static_cast<uint64_t>(static_cast<int64_t>(a.arg)));
    u.unit = unitOf(h);
    u.power = powMod(u.unit, kL);
    u.inversePower = invMod(u.power);
  }
  // Integer exponents (nearly all) from the unit's L-th power.
  if (exponent.den == 1)
    return exponent.num >= 0 ? powMod(u.power, static_cast<uint64_t>(exponent.num))
                             : powMod(u.inversePower, static_cast<uint64_t>(-exponent.num));
  const int64_t k = exponent.num * (kL / exponent.den);
  return k >= 0 ? powMod(u.unit, static_cast<uint64_t>(k)) : powMod(invMod(u.unit), static_cast<uint64_t>(-k));
}

Print ExprPrints::of(ExprTable& exprs, ExprId e) {
  const size_t i = static_cast<size_t>(e);
  if (i < made_.size() && made_[i]) return prints_[i];
  Print p;
  p.known = true;
  for (const Monomial& m : exprs.poly(e).terms) {
    const Rational c = m.coeff;
    // (A denominator below kExact is never a multiple of the modulus.)
    if (c.num >= kExact || c.num <= -kExact || c.den >= kExact || m.degree >= kExact || m.degree < 1) {
      p.known = false;
      break;
    }
    const uint64_t coeff = c.den == 1 ? residue(c.num) : mulMod(residue(c.num), invMod(residue(c.den)));
    for (int point = 0; point < 2 && p.known; ++point) {
      uint64_t term = mulMod(coeff, residue(m.degree));
      for (const Factor& f : m.factors) term = mulMod(term, atomPower(exprs, f.atom, point, f.exponent, &p.known));
      p.v[point] = addMod(p.v[point], term);
    }
    if (!p.known) break;
  }
  if (!p.known) p.v[0] = p.v[1] = 0;
  if (i >= made_.size()) {
    made_.resize(i + 1024, 0);
    prints_.resize(i + 1024);
  }
  made_[i] = 1;
  prints_[i] = p;
  return p;
}

Print ExprPrints::inverseOf(ExprTable& exprs, ExprId e) {
  const size_t i = static_cast<size_t>(e);
  if (i >= inverse_.size()) inverse_.resize(i + 1024, -1);
  if (inverse_[i] < 0) inverse_[i] = exprs.div(exprs.constant(Rational(1)), e);
  return of(exprs, inverse_[i]);
}

namespace {
// Both points' values combined by `op`; unknown where either is.
template <typename Op>
Print combine(const Print& a, const Print& b, Op op) {
  Print r;
  r.known = a.known && b.known;
  if (r.known)
    for (int k = 0; k < 2; ++k) r.v[k] = op(a.v[k], b.v[k]);
  return r;
}
}  // namespace

Print ExprPrints::add(const Print& a, const Print& b) { return combine(a, b, addMod); }
Print ExprPrints::sub(const Print& a, const Print& b) { return combine(a, b, subMod); }
Print ExprPrints::mul(const Print& a, const Print& b) { return combine(a, b, mulMod); }

bool ExprPrints::mayBeProportional(const Print& a, const Print& b) {
  if (!a.known || !b.known) return true;
  if ((a.v[0] == 0 && a.v[1] == 0) || (b.v[0] == 0 && b.v[1] == 0)) return true;
  return mulMod(a.v[0], b.v[1]) == mulMod(a.v[1], b.v[0]);
}

}  // namespace mirage::search
