// Prime-field arithmetic for the verifier: Montgomery multiplication in
// 64-bit words (no division by a variable anywhere on the hot path), lazy
// 128-bit accumulation of products for dot products, exact mapping of the
// language's decimal literals into the field, and the choice of moduli: each
// trial draws a safe prime pair P = 2Q + 1 (P for values, Q for exponents of
// `exp`, modelled as x -> w^x with w of order Q in Z_P*).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mirage::verify {

using u64 = uint64_t;
using u128 = unsigned __int128;

// Z_m for a prime 2^60 < m < 2^62, elements kept in Montgomery form (x is
// represented by x * 2^64 mod m). Every operation takes and returns
// representatives in [0, m). Construction computes the Montgomery constants
// (it divides; the operations never do).
class MontField {
 public:
  MontField() : MontField(kDefaultModulus) {}
  explicit MontField(u64 m) : m_(m), minv_(negInverse(m)), r2_(computeR2(m)) {
    top_ = 0;
    while (top_ < 3 && (m << (top_ + 1)) >> (top_ + 1) == m) ++top_;  // m << top_ < 2^64
  }

  u64 modulus() const { return m_; }
  u64 one() const { return toMont(1); }

  // t < m * 2^64  ->  t * 2^-64 mod m.
  u64 redc(u128 t) const {
    u64 u = static_cast<u64>(t) * minv_;
    u64 r = static_cast<u64>((t + static_cast<u128>(u) * m_) >> 64);
    return r >= m_ ? r - m_ : r;
  }
  // Any 128-bit t (for example a sum of up to 16 products of
  // representatives)  ->  t * 2^-64 mod m. Products of Montgomery
  // representatives summed this way give the Montgomery form of the sum.
  u64 reduceWide(u128 t) const {
    return redc((static_cast<u128>(reduce64(static_cast<u64>(t >> 64))) << 64) | static_cast<u64>(t));
  }

  u64 mul(u64 a, u64 b) const { return redc(static_cast<u128>(a) * b); }
  u64 add(u64 a, u64 b) const {
    u64 r = a + b;
    return r >= m_ ? r - m_ : r;
  }
  u64 sub(u64 a, u64 b) const { return a >= b ? a - b : a + m_ - b; }
  u64 neg(u64 a) const { return a == 0 ? 0 : m_ - a; }

  // Plain integer x (any 64-bit value) -> Montgomery form.
  u64 toMont(u64 x) const { return mul(reduce64(x), r2_); }
  // Montgomery form -> plain residue in [0, m).
  u64 fromMont(u64 a) const { return redc(a); }

  u64 pow(u64 a, u64 e) const {
    u64 r = one();
    while (e) {
      if (e & 1) r = mul(r, a);
      a = mul(a, a);
      e >>= 1;
    }
    return r;
  }
  // a != 0 (Fermat: a^(m-2)).
  u64 inv(u64 a) const { return pow(a, m_ - 2); }

  // 128 pseudo-random bits -> an element, uniform up to a statistical
  // distance below m / 2^128 < 2^-66.
  u64 fromRandom(u64 lo, u64 hi) const {
    return reduceWide((static_cast<u128>(hi) << 64) | lo);
  }

  // x mod m for any 64-bit x (x < 2^(top+1) m, so top+1 conditional
  // subtractions of m * 2^s suffice).
  u64 reduce64(u64 x) const {
    for (int s = top_; s >= 0; --s) {
      u64 ms = m_ << s;
      x = x >= ms ? x - ms : x;
    }
    return x;
  }

 private:
  static constexpr u64 kDefaultModulus = (u64{1} << 62) - 10565;  // a safe prime
  static u64 negInverse(u64 m) {
    u64 inv = m;  // Newton iteration: correct to 3 bits for odd m, doubles each step
    for (int i = 0; i < 6; ++i) inv *= 2 - m * inv;
    return ~inv + 1;
  }
  static u64 computeR2(u64 m) {
    u128 r = (static_cast<u128>(1) << 64) % m;
    return static_cast<u64>((r * r) % m);
  }

  u64 m_;
  u64 minv_;
  u64 r2_;
  int top_ = 0;
};

// Deterministic primality test for 64-bit integers (Miller-Rabin with a
// base set known to be exact below 2^64).
bool isPrime64(u64 n);

// A random safe prime pair: Q prime in (2^60, 2^61), P = 2Q + 1 prime, drawn
// from the ~2^50 such pairs by `seed`. Drawing the moduli at random is what
// makes the test sound against programs whose constants are multiples of a
// fixed prime (exp(x + Q) would equal exp(x) for a fixed Q).
struct PrimePair {
  u64 p = 0;
  u64 q = 0;
};
PrimePair randomSafePrimePair(u64 seed);

// An exact rational number num/den with den > 0, as decoded from a literal.
// The literal "0.125" becomes 125/1000, "1e-6" becomes 1/10^6, "-1" is -1/1;
// in the field it is num * den^-1 (den is a product of 2s and 5s, never 0 mod
// P or Q). Digits are reduced mod the modulus as they are read, so literals
// of any length map exactly.
struct FieldConstant {
  u64 p = 0;  // Montgomery form in Z_P
  u64 q = 0;  // Montgomery form in Z_Q
};

// Parses a decimal literal (sign, digits, optional fraction, optional
// exponent) into fields P and Q. Returns nullopt when the text is not such a
// literal.
std::optional<FieldConstant> decimalToField(std::string_view text, const MontField& P,
                                            const MontField& Q);

// The exact value of a finite double (a dyadic rational) in both fields; used
// for constants that carry no literal text.
FieldConstant doubleToField(double value, const MontField& P, const MontField& Q);

}  // namespace mirage::verify
